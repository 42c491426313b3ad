"""Issue 15: the layers' arrows point one way and files stay small, checked from the source itself.

Every project module (the top-level files, agent/, ui/) is parsed with `ast`; imports inside functions and
under TYPE_CHECKING count, as a reader of the code sees them."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agent", "ui")
NOT_SOURCE = ("tests", "bench")

# Below agent/ only session.py (it stores): the loop, the tools and the tokens never reach up to the
# compaction layer (compact.py), the controller, ui/ or main.py; they get what they need
# from above as parameters (e.g. the loop's before-request hook, agent.turn.guard).
AGENT_MAY_IMPORT = ("agent", "session")

# agent/'s parts from the top down: each imports only itself and the parts below it, so, e.g., the
# compaction never imports the turn, and the state never the tools. session.py (the session files)
# sits among them: the state and everything above store through it; it stands on agent/store/ alone.
# The shared modules (agent/config.py, events, errors, debuglog) are the vocabulary of all of them.
# (Named by folder, not dotted: the layout's rewrite script reads a package's dotted name as the old module's.)
LAYERS = tuple(
    part if part == "session" else "agent." + part
    for part in ("turn", "compaction", "tools", "state", "provider", "tokens", "session", "store", "text", "shared")
)
SHARED = ("agent.config", "agent.events", "agent.errors", "agent.debuglog", "agent.marks")

MAX_LINES = 400
# Over MAX_LINES today, with their current length as a ceiling: none may grow; one split below MAX_LINES
# leaves the list.
KNOWN_LONG: dict[str, int] = {}


def project_modules(root: Path) -> dict[str, Path]:
    paths = list(root.glob("*.py"))
    for package in PACKAGES:
        paths += (root / package).rglob("*.py")
    modules = {}
    for path in paths:
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def imported_names(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """Every name an import statement anywhere in `tree` may refer to, relative imports resolved."""
    names: set[str] = set()
    package = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            source = ".".join(base + ([node.module] if node.module else []))
            names.add(source)
            # `from ui import command_handlers` imports the module ui.command_handlers.
            names.update(f"{source}.{alias.name}" for alias in node.names)
    return names


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = project_modules(root)
    graph = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names = imported_names(tree, module, path.name == "__init__.py")
        graph[module] = {name for name in names if name in modules and name != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_imports_inside_functions_relative_imports_and_type_checking(tmp_path):
    (tmp_path / "ui").mkdir()
    (tmp_path / "ui" / "__init__.py").write_text("")
    (tmp_path / "ui" / "view.py").write_text("def later():\n    from main import run\n")
    (tmp_path / "ui" / "panel.py").write_text("from . import view\nfrom .view import later\n")
    (tmp_path / "ui" / "typed.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import ui.panel\n"
    )
    (tmp_path / "main.py").write_text("import ui.typed\n")
    graph = import_graph(tmp_path)
    assert graph["ui.view"] == {"main"}
    assert graph["ui.panel"] == {"ui", "ui.view"}
    assert graph["ui.typed"] == {"ui.panel"}
    assert cycles(graph) == [frozenset({"main", "ui.typed", "ui.panel", "ui.view"})]


def test_ui_never_imports_main():
    graph = import_graph(ROOT)
    assert "main" in graph and any(m.startswith("ui.") for m in graph)
    offenders = sorted(m for m, targets in graph.items() if m.startswith("ui.") and "main" in targets)
    assert offenders == [], f"ui/ must not import the entry script: {offenders}"


def test_no_import_cycle():
    found = [sorted(c) for c in cycles(import_graph(ROOT))]
    assert found == [], f"import cycles (imports inside functions and under TYPE_CHECKING count): {found}"


def test_agent_never_imports_the_layers_above_it():
    graph = import_graph(ROOT)
    assert "agent.turn.loop" in graph and "compact" in graph
    offenders = sorted(
        f"{m} -> {target}"
        for m, targets in graph.items()
        if m.split(".")[0] == "agent"
        for target in targets
        if target.split(".")[0] not in AGENT_MAY_IMPORT
    )
    assert offenders == [], f"agent/ gets what it needs from above by parameters, not imports: {offenders}"


def layer_of(module: str) -> str | None:
    """The part of agent/ (or session.py) a module belongs to; None for the layers above agent/."""
    if module in SHARED:
        return "agent.shared"
    if module == "session":
        return module
    parts = module.split(".")
    if parts[0] != "agent" or len(parts) == 1:
        return None  # agent/__init__.py only describes the parts
    part = ".".join(parts[:2])
    assert part in LAYERS, f"{module}: a module of agent/ belongs to a part (LAYERS) or is shared (SHARED)"
    return part


def test_every_part_of_agent_has_its_package_and_says_what_it_owns_and_may_import():
    for part in LAYERS:
        if part in ("session", "agent.shared"):
            continue
        init = ROOT / Path(*part.split(".")) / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "import" in doc.lower(), f"{init.relative_to(ROOT)}: say in its docstring what it owns and may import"
    flat = {p.stem for p in (ROOT / "agent").glob("*.py")} - {"__init__"}
    assert {f"agent.{m}" for m in flat} == set(SHARED), "a new module of agent/ goes into the part it serves"


def test_the_parts_of_agent_import_only_the_parts_below_them():
    graph = import_graph(ROOT)
    rank = {part: i for i, part in enumerate(LAYERS)}
    assert {layer_of(m) for m in graph} >= set(LAYERS)
    offenders = sorted(
        f"{m} -> {target}"
        for m, targets in graph.items()
        if layer_of(m)
        for target in targets
        if layer_of(target) and rank[layer_of(target)] < rank[layer_of(m)]
    )
    assert offenders == [], f"a part imports only itself and the parts below it ({' > '.join(LAYERS)}): {offenders}"


def test_the_layer_check_sees_an_arrow_upwards():
    graph = {"agent.compaction.rebuild": {"agent.turn.loop"}, "agent.turn.loop": {"agent.compaction.rebuild"}}
    rank = {part: i for i, part in enumerate(LAYERS)}
    up = [(m, t) for m, ts in graph.items() for t in ts if rank[layer_of(t)] < rank[layer_of(m)]]
    assert up == [("agent.compaction.rebuild", "agent.turn.loop")]


def test_no_module_imports_a_private_name_of_another():
    """session.py and the rest use each other's public names only (a `_name` is its module's own)."""
    modules = project_modules(ROOT)
    offenders = []
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in modules:
                offenders += [
                    f"{module}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and f"{node.module}.{a.name}" not in modules
                ]
    assert offenders == []


def source_files(root: Path) -> list[Path]:
    # A virtual environment in the checkout, whatever its name (the README's is .venv; `venv` is as
    # common): three tests read a `venv/` folder's site-packages as our sources and failed.
    envs = {cfg.parent.name for cfg in root.glob("*/pyvenv.cfg")}

    def counted(path: Path) -> bool:
        parts = path.relative_to(root).parts
        return parts[0] not in {*NOT_SOURCE, *envs} and not any(
            p.startswith(".") or p == "build" or p.endswith(".egg-info") for p in parts
        )

    return sorted(p for p in root.rglob("*.py") if counted(p))


def test_no_source_file_over_400_lines_but_the_known_ones_and_none_grows():
    sizes = {
        p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines()) for p in source_files(ROOT)
    }
    assert "main.py" in sizes and "ui/app.py" in sizes
    too_long = {name: n for name, n in sizes.items() if n > KNOWN_LONG.get(name, MAX_LINES)}
    assert too_long == {}, f"split by responsibility (at most {MAX_LINES} lines, known ones no longer): {too_long}"
    stale = {name: sizes.get(name) for name in KNOWN_LONG if sizes.get(name, 0) <= MAX_LINES}
    assert stale == {}, f"no longer over {MAX_LINES} lines (or gone): take off KNOWN_LONG: {stale}"


def test_every_top_level_module_is_installed():
    # The `coding-agent` command of a non-editable install finds only what pyproject lists.
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["py-modules"])
    top_level = {p.stem for p in ROOT.glob("*.py")}
    assert top_level - listed == set()


def documented_modules(text: str) -> set[str]:
    """The modules docs/architecture.md lists under "Every module": the first cell of each table row."""
    section = text.split("\n## Every module", 1)[1].split("\n## ", 1)[0]
    rows = (line for line in section.splitlines() if line.startswith("| `"))
    return {row.split("`")[1] for row in rows}


def test_docs_architecture_lists_every_module_and_no_other():
    listed = documented_modules((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    tree = {path.relative_to(ROOT).as_posix() for path in project_modules(ROOT).values() if path.name != "__init__.py"}
    assert "agent/turn/loop.py" in tree
    assert sorted(tree - listed) == [], "add a row to docs/architecture.md's 'Every module' for each new module"
    assert sorted(listed - tree) == [], "docs/architecture.md lists modules that no longer exist"


def test_every_package_is_installed():
    # A non-editable install holds only the packages pyproject lists, subpackages included.
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    inits = [p for name in PACKAGES for p in (ROOT / name).rglob("__init__.py")]
    packages = {".".join(p.parent.relative_to(ROOT).parts) for p in inits}
    assert "agent.turn" in packages and packages - listed == set()


# The compaction's pure parts: values in, values out (docs/architecture.md, "The compaction").
PURE_COMPACTION = ("agent.compaction.rebuild", "agent.compaction.summary", "agent.compaction.policy")


def test_nothing_outside_the_compaction_package_imports_its_inner_modules():
    """The package's surface is what agent/compaction/__init__.py names; its modules are its own."""
    graph = import_graph(ROOT)
    inner = {m for m in graph if m.startswith("agent.compaction.")}
    assert "agent.compaction.flow" in inner and "agent.compaction" in graph["compact"]
    offenders = sorted(
        f"{m} -> {target}"
        for m, targets in graph.items()
        if not m.startswith("agent.compaction")
        for target in targets
        if target in inner
    )
    assert offenders == [], f"import these from agent.compaction (its __init__ names them): {offenders}"
    within = sorted(m for m in inner if "agent.compaction" in graph[m])
    assert within == [], f"inside the package, import the module itself, not the package: {within}"


def test_the_pure_parts_of_compaction_import_no_tools_no_session_file_no_app_state():
    import inspect

    from agent.compaction import flow

    graph = import_graph(ROOT)
    for module in PURE_COMPACTION:
        below = sorted(t for t in graph[module] if t.startswith(("agent.tools", "agent.state")) or t == "session")
        assert below == [], f"{module} imports {below}"
        source = (ROOT / Path(*module.split("."))).with_suffix(".py").read_text(encoding="utf-8")
        assert "AppState" not in source, module
    annotations = [str(p.annotation) for p in inspect.signature(flow.plan).parameters.values()]
    assert annotations and not any("AppState" in a for a in annotations)


def test_every_module_path_the_docs_name_exists():
    """A path in README.md or docs/ (agent/…/x.py, ui/x.py, bench/x.py, tests/x.py) names a file that
    exists: the subpackage move left 26 flat agent/*.py paths behind in the docs."""
    import re

    named: dict[str, str] = {}
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for path in re.findall(r"\b((?:agent|ui|bench|tests)/[\w/]+\.py)\b", doc.read_text()):
            named.setdefault(path, doc.name)
    missing = {path: doc for path, doc in named.items() if not (ROOT / path).exists()}
    assert named and not missing, missing


def test_every_module_row_is_a_whole_sentence():
    """A row cut at a colon tells a newcomer nothing: each says what its module holds, to the full stop."""
    section = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split("\n## Every module", 1)[1]
    rows = re.findall(r"^\| `([^`]+)` \| (.*) \|$", section, re.MULTILINE)
    assert len(rows) > 100
    cut = [module for module, text in rows if not text.endswith((".", "!", "?"))]
    assert cut == [], f"finish these rows of docs/architecture.md in a whole sentence: {cut}"


def test_the_tree_is_ruff_formatted_and_clean():
    """One layout for every file (`ruff format`) and no lint: a diff then shows what changed, not how."""
    import subprocess
    import sys

    for check in (["format", "--check", "--quiet"], ["check", "--quiet"]):
        done = subprocess.run([sys.executable, "-m", "ruff", *check, str(ROOT)], capture_output=True, text=True)
        assert done.returncode == 0, f"ruff {check[0]}: {done.stdout[-2000:]}{done.stderr[-500:]}"
