"""The front matter of Claude Code's Markdown files (custom commands, sub-agents): the `key: value`
lines between two `---` lines at the top, and lists as Claude Code takes them (`a, b`, `[a, b]`, or
`- a` lines), parsed without a YAML library: the files use that much of YAML and no more."""

from __future__ import annotations

Value = str | list[str]


def split(text: str) -> tuple[dict[str, Value], str]:
    """(fields, body). A file without front matter is all body; a line that is none of the forms
    above (a nested map, a comment) is skipped."""
    if not text.startswith("---"):
        return {}, text
    head, sep, body = text[3:].partition("\n---")
    if not sep:
        return {}, text
    fields: dict[str, Value] = {}
    last = ""
    for line in head.splitlines():
        stripped = line.strip()
        if stripped.startswith("- ") and last:
            items = fields.get(last)
            fields[last] = [*(items if isinstance(items, list) else []), _unquote(stripped[2:])]
            continue
        key, colon, value = line.partition(":")
        if not colon or not key.strip() or line[:1].isspace() or key.strip().startswith("#"):
            continue
        last, value = key.strip(), value.strip()
        if value.startswith("[") and value.endswith("]"):
            fields[last] = [_unquote(item) for item in split_list(value[1:-1])]
        else:
            fields[last] = _unquote(value) if value else []
    return fields, body.lstrip("\n").removeprefix("-").lstrip("\n")


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def text_of(fields: dict[str, Value], key: str) -> str:
    value = fields.get(key, "")
    return value if isinstance(value, str) else ", ".join(value)


def list_of(fields: dict[str, Value], key: str) -> list[str] | None:
    """A list field, or None when the file does not say (which may mean "all", as `tools` does)."""
    if key not in fields:
        return None
    value = fields[key]
    return [_unquote(item) for item in split_list(value)] if isinstance(value, str) else value


def split_list(text: str) -> list[str]:
    """`Bash(git add:*), Read Grep` -> ["Bash(git add:*)", "Read", "Grep"]: commas and spaces
    separate, except inside parentheses (a rule's command has spaces in it)."""
    items, current, depth = [], "", 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (char == "," or char.isspace()):
            if current.strip():
                items.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        items.append(current.strip())
    return items
