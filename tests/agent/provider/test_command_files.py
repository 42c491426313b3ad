"""Custom commands as Claude Code users write them: namespaced folders, files added while running,
`` !`command` `` lines, `allowed-tools` for the command's turn only (a project's only once trusted),
and `model`. Real files, the real dispatch, the strict emulator."""

from __future__ import annotations

import json
from dataclasses import dataclass
from io import StringIO

import pytest
from rich.console import Console

import lifecycle
import main
from agent.events import ApprovalRequest, EventLog, Listing, Notice, Question, TrustRequest
from agent.text.i18n import t
from ui.app import App
from ui.commands import dispatch


@dataclass
class Answers(EventLog):
    """The user at the far end: `approval` to every approval question, `question` to every yes/no."""

    approval: str = "n"
    question: str = "n"

    def __call__(self, event):
        super().__call__(event)
        if isinstance(event, ApprovalRequest | Question | TrustRequest):
            answer = self.approval if isinstance(event, ApprovalRequest) else self.question

            async def reply() -> str:
                return answer

            return reply()
        return None


@pytest.fixture
def app(make_state, workspace):
    state = make_state(yes=False)
    app = App(state, main.submit, console=Console(file=StringIO(), width=120))
    state.emit = Answers()
    return app


def write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def sent(server) -> str:
    return json.dumps(server.requests[-1]["body"]) if server.requests else ""


def notices(app) -> list[str]:
    return [n.text for n in app.state.emit.of(Notice)]


async def test_a_namespaced_command_is_listed_and_run(app, server, workspace):
    write(
        workspace / ".claude" / "commands" / "frontend" / "component.md",
        "---\ndescription: Make a component\n---\nMake a $1 component in the house style.",
    )
    await dispatch(app, "/help")
    [listing] = app.state.emit.of(Listing)
    # Claude Code's own name for it, /component, too: no other command has that name.
    assert "/frontend:component [arguments] (/component) — Make a component" in listing.lines
    await dispatch(app, "/frontend:component Button")
    assert "Make a Button component in the house style." in sent(server)
    await dispatch(app, "/component Card")
    assert "Make a Card component in the house style." in sent(server)
    write(workspace / ".claude" / "commands" / "backend" / "component.md", "Make a $1 service.")
    await dispatch(app, "/component Queue")  # two folders have one: only the full names work now
    assert "Make a Queue" not in sent(server)
    await dispatch(app, "/backend:component Queue")
    assert "Make a Queue service." in sent(server)


async def test_a_command_file_added_while_running_is_found(app, server, workspace, home):
    await main.submit(app, "/deferred now")
    assert notices(app) == [t("unknown_command", "en", name="deferred")] and server.requests == []
    write(home / "commands" / "deferred.md", "Do it $ARGUMENTS.")  # the user's own folder
    await main.submit(app, "/deferred now")
    assert "Do it now." in sent(server)


async def test_an_inline_command_is_asked_and_its_output_sent_in_its_place(app, server, home):
    write(home / "commands" / "status.md", "State:\n!`echo inline-$ARGUMENTS`\nSummarise it.")
    app.state.emit.approval = "y"
    await dispatch(app, "/status-check x")  # not this name: the file is /status, a built-in's name
    await dispatch(app, "/status")  # the built-in wins over the file
    assert server.requests == []
    write(home / "commands" / "state.md", "State:\n!`echo inline-$ARGUMENTS`\nSummarise it.")
    await dispatch(app, "/state x")
    [asked] = app.state.emit.of(ApprovalRequest)
    assert (asked.kind, asked.subject) == ("command", "echo inline-x")
    body = sent(server)
    assert "State:\\ninline-x\\nSummarise it." in body and "!`" not in body


async def test_a_declined_inline_command_leaves_the_prompt_unsent(app, server, home):
    write(home / "commands" / "state.md", "State: !`echo secret`")
    await dispatch(app, "/state")
    assert server.requests == []
    assert t("command_not_sent", "en", name="state") in notices(app)


async def test_allowed_tools_are_granted_for_the_commands_turn_only(app, server, home):
    write(
        home / "commands" / "grant.md",
        "---\nallowed-tools: Bash(echo granted:*), Read\n---\n!`echo granted one`\nrun echo granted two",
    )
    await dispatch(app, "/grant")
    assert app.state.emit.of(ApprovalRequest) == []  # neither the ! line nor the model's command was asked
    results = [m["content"] for m in server.requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert results == ["granted two\n[exit code: 0]"] and "granted one" in sent(server)
    await main.on_submit(app.state, "run echo granted three")  # a turn of its own: the grant is gone
    [asked] = app.state.emit.of(ApprovalRequest)
    assert asked.subject == "echo granted three"
    assert "the user declined to run this command" in sent(server)


async def test_a_projects_grants_wait_for_the_projects_trust(app, server, workspace):
    deploy = workspace / ".claude" / "commands" / "deploy.md"
    write(deploy, "---\nallowed-tools: Bash(echo deploy:*)\n---\nLog: !`echo deploy now`")
    await dispatch(app, "/deploy")  # untrusted: said, and the ! line asked (and declined)
    assert t("command_grants_untrusted", "en", name="deploy", rules="Bash(echo deploy:*)") in notices(app)
    assert len(app.state.emit.of(ApprovalRequest)) == 1 and server.requests == []
    # The project's question lists the command's grant; approved, it counts.
    app.state.emit = Answers(question="y")
    await lifecycle.start_project(app.state)
    [asked] = app.state.emit.of(TrustRequest)
    assert "command  /deploy: allowed-tools Bash(echo deploy:*); runs !`echo deploy now`" in asked.lines
    await dispatch(app, "/deploy")
    assert app.state.emit.of(ApprovalRequest) == [] and "Log: deploy now" in sent(server)
    # A grant changed since the approval is not the one the user saw: asked again.
    write(deploy, "---\nallowed-tools: Bash(echo deploy:*), Bash(curl:*)\n---\nLog: !`echo deploy now`")
    await dispatch(app, "/deploy")
    assert len(app.state.emit.of(ApprovalRequest)) == 1


async def test_the_commands_model_is_used_for_its_turn_only(app, server, home):
    write(home / "commands" / "deep.md", "---\nmodel: deepseek-v4-pro\n---\nThink hard.")
    write(home / "commands" / "claude.md", "---\nmodel: sonnet\n---\nThink.")
    await dispatch(app, "/deep")
    assert server.requests[-1]["body"]["model"] == "deepseek-v4-pro"
    await main.on_submit(app.state, "and now?")
    assert server.requests[-1]["body"]["model"] == "deepseek-flash" == app.state.config.model
    await dispatch(app, "/claude")
    assert server.requests[-1]["body"]["model"] == "deepseek-flash"
    assert t("command_model_claude", "en", name="claude", model="sonnet", current="deepseek-flash") in notices(app)
