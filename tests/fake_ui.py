"""A UI for tests at the far end of the channel (agent.events): it records every event and answers
approval requests the way a user at the question would, with `approve(command)` or, for a write,
`approve(path, why=reason)`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from agent.events import ApprovalRequest, Event, EventLog


@dataclass
class FakeUI(EventLog):
    approve: Callable[..., Awaitable[str]] | None = None

    def __call__(self, event: Event) -> Awaitable[str] | None:
        super().__call__(event)
        if not isinstance(event, ApprovalRequest) or self.approve is None:
            return None
        if event.kind == "write":
            return self.approve(event.subject, why=event.why)
        return self.approve(event.subject)
