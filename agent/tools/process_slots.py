"""How many tool processes (grep workers, commands) may run at once.

The model may put 200 grep calls in one reply and pydantic-ai runs them all at once: 200 worker
processes, 4 GB of memory on a laptop. Each function that starts a process waits for one of
MAX_PROCESSES slots first instead; a call cancelled while it waits starts nothing.
"""

from __future__ import annotations

import asyncio
import functools
import os
import weakref
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

# More processes than cores only make each slower; four keep a small machine usable.
MAX_PROCESSES = max(2, min(4, os.cpu_count() or 2))
_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = weakref.WeakKeyDictionary()
P = ParamSpec("P")
R = TypeVar("R")


def holds_slot(start: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """`start` (a coroutine function that runs one process to its end) run inside a slot."""

    @functools.wraps(start)
    async def bounded(*args: P.args, **kwargs: P.kwargs) -> R:
        # An asyncio.Semaphore belongs to one event loop: one per loop (tests run several).
        slots = _slots.setdefault(asyncio.get_running_loop(), asyncio.Semaphore(MAX_PROCESSES))
        async with slots:
            return await start(*args, **kwargs)

    return bounded
