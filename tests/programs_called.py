"""The external programs a Python source calls, read from its syntax tree: the argv of subprocess,
asyncio, pexpect and os calls, the names given to shutil.which, and the command lines inside strings
that are run by a shell (`shell=True`, `sh -c`, a tool call's or hook's `"command"`, the emulator's
`run <command>` message, a script that starts with `#!`), parsed with bashlex as the agent's permission
rules are. A value the tree does not hold (a variable, a placeholder of an f-string that is no
module-level constant) is passed over: a program must be named in the source to be counted."""

from __future__ import annotations

import ast
import shlex
from collections.abc import Iterator
from pathlib import Path

import bashlex

# Calls whose first argument is a program or an argv; the qualified names as imported.
EXEC = {
    "subprocess.run",
    "subprocess.Popen",
    "subprocess.check_output",
    "subprocess.check_call",
    "subprocess.call",
    "asyncio.create_subprocess_exec",
    "pexpect.spawn",
    "pexpect.run",
    "os.execvp",
    "os.execv",
    "os.execlp",
    "os.posix_spawnp",
    "os.spawnlp",
}
SHELL = {
    "asyncio.create_subprocess_shell",
    "os.system",
    "os.popen",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
}
WHICH = {"shutil.which"}
SHELLS = {"sh", "bash", "dash"}
# Commands that run the next word as a program (after their own options).
WRAPPERS = {"exec", "env", "nohup", "setsid", "timeout", "command", "nice", "xargs"}
SYSTEM_DIRS = {"/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin"}
UNKNOWN = "UNKNOWN_VALUE"  # stands for a value the source does not hold (a word bashlex can parse)


def program_name(word: str) -> str | None:
    """`word` as a program found on PATH, or None: a path outside the system's folders is a file the
    test made (or a missing one on purpose), not a program a machine must have."""
    if not word or UNKNOWN in word or not (word[0].isalnum() or word[0] in "/._"):
        return None
    if "/" in word:
        folder, _, name = word.rpartition("/")
        return name if folder in SYSTEM_DIRS else None
    return word


def shell_programs(line: str) -> set[str]:
    """The programs a shell command line runs, wrappers (`env X`, `exec X`) looked through."""
    try:
        trees = bashlex.parse(line)
    except Exception:  # bashlex refuses some valid lines (e.g. control characters): split by hand
        return _split_programs(line)
    found: set[str] = set()

    class Visitor(bashlex.ast.nodevisitor):
        def visitcommand(self, node, parts):
            words = [p.word for p in parts if p.kind == "word"]
            found.update(_through_wrappers(words))

    for tree in trees:
        Visitor().visit(tree)
    return found


def _split_programs(line: str) -> set[str]:
    found: set[str] = set()
    for part in line.replace("&&", ";").replace("||", ";").replace("|", ";").replace("\n", ";").split(";"):
        try:
            words = shlex.split(part)
        except ValueError:
            words = part.split()
        found.update(_through_wrappers([w for w in words if "=" not in w.split("/")[0]]))
    return found


def _through_wrappers(words: list[str]) -> set[str]:
    found: set[str] = set()
    while words:
        name = program_name(words[0])
        if name is None:
            break
        found.add(name)
        if name in SHELLS and len(words) > 2 and words[1] == "-c":
            found |= shell_programs(words[2])
            break
        if name not in WRAPPERS or (name == "command" and len(words) > 1 and words[1].startswith("-")):
            break
        words = words[1:]
        if name == "timeout" and words:
            words = words[1:]
        while words and (words[0].startswith("-") or ("=" in words[0] and name == "env")):
            words = words[1:]
    return found


class _Source:
    def __init__(self, tree: ast.Module) -> None:
        self.imported: dict[str, str] = {}
        self.constants: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = alias.name
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        for node in tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Constant | ast.JoinedStr):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and (text := self.text(node.value)) is not None:
                        self.constants[target.id] = text

    def qualified(self, func: ast.expr) -> str:
        if isinstance(func, ast.Name):
            return self.imported.get(func.id, func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            return f"{self.imported.get(func.value.id, func.value.id)}.{func.attr}"
        return ""

    def text(self, node: ast.expr) -> str | None:
        """The string `node` holds, UNKNOWN for the parts the source does not hold; None if no string."""
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.Name):
            return self.constants.get(node.id)
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                if isinstance(value, ast.Constant):
                    parts.append(str(value.value))
                else:
                    inner = self.text(value.value) if isinstance(value, ast.FormattedValue) else None
                    parts.append(UNKNOWN if inner is None else inner)
            return "".join(parts)
        return None


def programs_in(path: Path, messages: bool) -> Iterator[tuple[str, int]]:
    """(program, line number) for every program the source at `path` calls; with `messages`, also in the
    emulator's `run <command>` messages (a test's strings: elsewhere "run ..." is prose)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    source = _Source(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for name in _called(source, node):
                yield name, node.lineno
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if key is not None and source.text(key) == "command" and (line := source.text(value)):
                    for name in shell_programs(line):
                        yield name, node.lineno
        elif isinstance(node, ast.Constant | ast.JoinedStr) and (text := source.text(node)):
            for name in _in_string(text, messages):
                yield name, node.lineno


def _in_string(text: str, messages: bool) -> set[str]:
    if messages and text.startswith("run ") and "\n" not in text:
        return shell_programs(text[4:])
    if text.startswith("#!"):
        first, _, body = text.partition("\n")
        interpreter = _through_wrappers(first[2:].split())
        return interpreter | (shell_programs(body) if interpreter & SHELLS else set())
    return set()


def _called(source: _Source, call: ast.Call) -> set[str]:
    name = source.qualified(call.func)
    if not call.args or name not in EXEC | SHELL | WHICH:
        return set()
    first = call.args[0]
    shell = any(k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value for k in call.keywords)
    if isinstance(first, ast.List | ast.Tuple):
        words = [source.text(e) or UNKNOWN for e in first.elts]
        return shell_programs(words[0]) if shell and words else _through_wrappers(words)
    text = source.text(first)
    if text is None:
        return set()
    if name in SHELL or shell:
        return shell_programs(text)
    if (
        name in WHICH
        or name == "asyncio.create_subprocess_exec"
        or len(call.args) > 1
        or call.keywords
        and name == "pexpect.spawn"
        and any(k.arg == "args" for k in call.keywords)
    ):
        found = program_name(text)
        return {found} if found else set()
    return (
        _through_wrappers(shlex.split(text))
        if name == "pexpect.spawn"
        else ({found} if (found := program_name(text)) else set())
    )
