"""The house's floors: who may import whom, between the top-level rooms and inside them.

Between the rooms (README, "How it fits together"), every import goes down:
``settings`` (config checking, text files, atomic writes, the health checks' ``Check`` and
the ``Machine`` they read) imports nothing of ours;
``engine`` only ``settings``; ``firmware_bridge`` and ``display`` the engine and
``settings`` only; ``tags`` the readers' events too; ``hardware`` (the wheel and
the buttons) neither the readers nor the tags; and nothing but ``companion`` imports
``companion``.

Inside ``companion/``: ``views/`` (the view of each state, and its answers off the turn)
imports none of the rest, ``table/`` (the loop and its journal) only ``views/``, ``record/``
``table/`` (and ``views/``), ``mqtt/`` ``table/``, ``record/`` and ``views/``, ``pages/``
(the page server) ``table/`` (and ``views/``); the composition root (``service``,
``scripted``, ``config``) imports those, never ``ops/`` or ``cli/``, which sit on top.

Inside the engine: the core imports no family (at run time: ``engine/state.py`` names the
families' state types for the type checker only). A family imports the core; Time imports
the Performance's health cascade (P13), and no import goes back the other way.

And no circle anywhere: no module imports at run time one that imports it back, directly or
round a longer loop (``test_no_import_cycle_among_the_projects_modules``).
"""

from __future__ import annotations

import ast
import importlib.util
import io
import os
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
FAMILIES = ("performance", "time", "combat")

#: which other families a family may import (the rules tie Time's Fatigue to P13)
ALLOWED = {"performance": set(), "time": {"performance"}, "combat": set()}


def _runtime_imports(path: Path) -> set[str]:
    """Modules a file imports when it runs (imports under ``if TYPE_CHECKING:`` left out)."""
    tree = ast.parse(path.read_text("utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def _family_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 2 and parts[0] == "engine" and parts[1] in FAMILIES:
        return parts[1]
    return None


def _core_files() -> list[Path]:
    return sorted(p for p in ENGINE.glob("*.py"))


@pytest.mark.parametrize("path", _core_files(), ids=lambda p: p.name)
def test_the_core_imports_no_family(path: Path) -> None:
    if path.name == "__init__.py":  # the package root registers the families: that is its job
        return
    families = {_family_of(m) for m in _runtime_imports(path)} - {None}
    assert not families, f"engine/{path.name} imports the {families} family"


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_imports_another_only_where_the_rules_tie_them(family: str) -> None:
    for path in sorted((ENGINE / family).glob("*.py")):
        others = {_family_of(m) for m in _runtime_imports(path)} - {None, family}
        assert others <= ALLOWED[family], (
            f"engine/{family}/{path.name} imports {others - ALLOWED[family]}"
        )


def test_the_core_holds_no_family_file() -> None:
    """Family files live in their room and drop the family prefix (engine/time/draws.py)."""
    names = {p.stem for p in _core_files()}
    prefixed = {n for n in names if n.startswith(("time_", "odds", "combat_", "performance"))}
    assert not prefixed, prefixed


def test_the_documented_public_api_is_importable_from_engine() -> None:
    import engine

    for name in ("apply", "replay", "load_table", "load_table_text", "parse_command"):
        assert callable(getattr(engine, name)), name
    for name in ("CommandRejected", "ConfigError", "RuleViolation", "Event", "TableState"):
        assert isinstance(getattr(engine, name), type), name


def test_every_family_registers_its_commands() -> None:
    """Importing engine registers all three rule families' commands (P, T and C)."""
    from engine.vocabulary import REGISTRY

    groups = {spec.group for spec, _ in REGISTRY.values()}
    assert {"performance", "time", "combat"} <= groups


def test_the_cli_is_a_package_with_one_module_a_subcommand() -> None:
    from companion import cli

    assert Path(cli.__file__).name == "__init__.py"
    for name in cli.SUBCOMMANDS:
        assert name.startswith("companion.cli."), name


#: top-level room → the rooms of ours it may import (besides itself)
ROOMS: dict[str, set[str]] = {
    "settings": set(),
    "engine": {"settings"},
    "firmware_bridge": {"settings"},
    "display": {"engine", "settings"},
    "tags": {"firmware_bridge", "engine", "settings"},
    "hardware": {"engine", "settings"},
    "companion": {"display", "hardware", "tags", "firmware_bridge", "engine", "settings"},
}

#: companion's rooms → the companion rooms each may import (besides itself); ``root`` is
#: the composition root: companion/service.py, scripted.py and config.py
COMPANION: dict[str, set[str]] = {
    "views": set(),
    "table": {"views"},
    "record": {"views", "table"},
    "mqtt": {"views", "table", "record"},
    "pages": {"views", "table"},
    "root": {"views", "table", "record", "mqtt", "pages"},
    "ops": {"views", "table", "record", "mqtt", "pages", "root"},
    "cli": {"views", "table", "record", "mqtt", "pages", "root", "ops"},
}


def _room_files(room: str) -> list[Path]:
    return sorted(
        p for p in (ROOT / room).rglob("*.py") if "firmware_bridge/firmware" not in p.as_posix()
    )


def _ours(module: str) -> str | None:
    top = module.split(".")[0]
    return top if top in ROOMS else None


@pytest.mark.parametrize("room", ROOMS)
def test_a_room_imports_only_the_floors_below_it(room: str) -> None:
    wrong = {}
    for path in _room_files(room):
        rooms = {_ours(m) for m in _runtime_imports(path)} - {None, room}
        if rooms - ROOMS[room]:
            wrong[path.relative_to(ROOT).as_posix()] = sorted(rooms - ROOMS[room])
    assert not wrong, f"imports above {room}/'s floor: {wrong}"


def _companion_room(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "companion" or len(parts) < 2:
        return None
    if parts[1] in COMPANION:
        return parts[1]
    return "root" if parts[1] in {"service", "scripted", "config"} else None


@pytest.mark.parametrize("room", COMPANION)
def test_inside_companion_imports_go_down(room: str) -> None:
    if room == "root":
        files = [ROOT / "companion" / f"{n}.py" for n in ("service", "scripted", "config")]
    else:
        files = sorted((ROOT / "companion" / room).rglob("*.py"))
    wrong = {}
    for path in files:
        rooms = {_companion_room(m) for m in _runtime_imports(path)} - {None, room}
        if rooms - COMPANION[room]:
            wrong[path.relative_to(ROOT).as_posix()] = sorted(rooms - COMPANION[room])
    assert not wrong, f"imports above companion/{room}/'s floor: {wrong}"


def _imports(path: Path) -> set[str]:
    """Every module a file names in an import, those for the type checker only included."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("room", COMPANION)
def test_inside_companion_no_arrow_goes_up_even_for_the_type_checker(room: str) -> None:
    """A room takes what it uses from below as a narrow Protocol of its own, not as a
    ``TYPE_CHECKING`` import of the service above it (the page server did, issue 40)."""
    if room == "root":
        files = [ROOT / "companion" / f"{n}.py" for n in ("service", "scripted", "config")]
    else:
        files = sorted((ROOT / "companion" / room).rglob("*.py"))
    wrong = {}
    for path in files:
        rooms = {_companion_room(m) for m in _imports(path)} - {None, room}
        if rooms - COMPANION[room]:
            wrong[path.relative_to(ROOT).as_posix()] = sorted(rooms - COMPANION[room])
    assert not wrong, f"arrows above companion/{room}/'s floor: {wrong}"


def test_companion_holds_only_its_rooms_and_the_composition_root() -> None:
    """A new module goes into a room (views, table, mqtt, pages, record, ops, cli), not beside
    the root."""
    loose = {p.stem for p in (ROOT / "companion").glob("*.py")} - {"__init__"}
    assert loose == {"service", "scripted", "config"}, loose
    rooms = {p.name for p in (ROOT / "companion").iterdir() if (p / "__init__.py").is_file()}
    assert rooms == set(COMPANION) - {"root"}, rooms


def test_benchmarks_run_as_modules() -> None:
    """``python -m benchmarks.<name>`` from the root: none edits sys.path, and none is named
    after a package it would shadow run as a script (pyserial's ``serial``; ours, as
    ``benchmarks/engine.py`` shadowed ``engine`` when odds.py ran itself by path):
    tests/benchmarks/test_run_as_modules.py runs each."""
    folder = ROOT / "benchmarks"
    assert (folder / "__init__.py").is_file()
    editing = [p.name for p in sorted(folder.glob("*.py")) if "sys.path" in p.read_text("utf-8")]
    assert not editing, editing
    assert not (folder / "serial.py").exists()
    shadowing = []
    for path in sorted(folder.glob("*.py")):
        spec = None if path.stem == "__init__" else importlib.util.find_spec(path.stem)
        if spec is not None and spec.origin is not None:  # a folder of the root's: no module
            shadowing.append(f"benchmarks/{path.name} (shadows {spec.origin})")
    assert not shadowing, f"benchmarks named after a module: {shadowing}"


#: folders of the checkout that are not its files: the venv, the pages' packages, git's, and
#: what builds and test runs leave (.gitignore)
_NOT_THE_TREE = {".venv", "node_modules", ".git", "build", "dist", "test-artefacts",
                 "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis"}  # fmt: skip
_SYS_PATH_EDIT = re.compile(r"\bsys\.path\s*(?:\.(?:insert|append|extend)\s*\(|\[|\+=|=(?!=))")


def _tree_python() -> Iterator[Path]:
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in _NOT_THE_TREE and not d.endswith(".egg-info")]
        yield from (Path(folder) / f for f in files if f.endswith(".py"))


def test_no_file_of_the_tree_edits_sys_path() -> None:
    """Every tool, benchmark and test imports what it needs as the checkout's root gives it
    (``python -m …`` from the root, pytest's rootdir): none inserts, appends or assigns to
    ``sys.path``."""
    found = []
    for path in sorted(_tree_python()):
        for n, line in enumerate(path.read_text("utf-8", "replace").splitlines(), 1):
            if _SYS_PATH_EDIT.search(line):
                found.append(f"{path.relative_to(ROOT).as_posix()}:{n}: {line.strip()}")
    assert not found, "sys.path edited (run it as a module from the root instead):\n" + "\n".join(
        found
    )


#: an issue's number, and a figure in milliseconds (or microseconds): the history's and the
#: docs', not the pure core's
_ISSUE = re.compile(r"\bissues? #?\d+", re.IGNORECASE)
_FIGURE_MS = re.compile(r"\d(?:[\d,.]*\d)?\s?(?:ms|µs)\b")


def _comments_and_docstrings(path: Path) -> Iterator[tuple[int, str]]:
    """Each comment and each string statement (module, class, function and attribute
    docstrings) of a file, with its line."""
    text = path.read_text("utf-8")
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    for node in ast.walk(ast.parse(text)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            yield node.lineno, node.value.value


def test_the_engine_says_no_issue_number_or_figure_in_its_comments() -> None:
    """Issue numbers and benchmark figures belong in the docs and the commits: in the pure
    core's comments and docstrings they go stale (the rules it follows are cited by id, P…,
    T…, C…). Its text for the docs (engine/docs.py's pages) is the docs', not a comment."""
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        for line, text in _comments_and_docstrings(path):
            for what in (_ISSUE, _FIGURE_MS):
                if m := what.search(text):
                    found.append(f"{path.relative_to(ROOT).as_posix()}:{line}: {m.group(0)!r}")
    assert not found, found


#: tests/ folders that hold no product room's tests: the shared fixtures and stand-ins, and
#: data a test reads
_TEST_SUPPORT = {"harness", "data", "golden", "firmware_standins", "__pycache__"}


def test_the_tests_mirror_the_products_rooms() -> None:
    """A reader finds the tests of a file by its path: every folder of tests/ is a folder (or a
    module, as tests/companion/service/ for companion/service.py) of the product at the same
    path, and tests/harness is the one home of shared fixtures and stand-ins (a package)."""
    tests = ROOT / "tests"
    strays = []
    for folder in sorted(p for p in tests.rglob("*") if p.is_dir()):
        rel = folder.relative_to(tests)
        if _TEST_SUPPORT & set(rel.parts):
            continue
        product = ROOT / rel
        if not (product.is_dir() or product.with_suffix(".py").is_file()):
            strays.append(rel.as_posix())
    assert not strays, f"tests/ folders with no product room of that path: {strays}"
    assert (tests / "harness" / "__init__.py").is_file()


def _modules() -> dict[str, Path]:
    """The product's modules by dotted name (a package by its ``__init__.py``)."""
    found = {}
    for room in ROOMS:
        for path in _room_files(room):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _module_imports(path: Path, modules: set[str]) -> set[str]:
    """The project's modules ``path`` imports at run time: ``from pkg import sub`` is an import
    of the module ``pkg.sub`` (its package runs first, as for any submodule: no arrow of its
    own); ``from pkg import name`` of anything else is one of ``pkg``."""
    tree = ast.parse(path.read_text("utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            subs = {f"{node.module}.{a.name}" for a in node.names}
            found.update(subs & modules)
            if subs - modules:
                found.add(node.module)
    return found & modules


def _import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan's, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        cycles.append(sorted(group))
    return cycles


def test_no_import_cycle_among_the_projects_modules() -> None:
    """No module imports, at run time (an import inside a function included; one under
    ``if TYPE_CHECKING:`` left out), a module that imports it back, directly or round a
    longer circle: each part's code has one owner below its users (issue 40 item 4)."""
    modules = _modules()
    names = set(modules)
    graph = {m: _module_imports(p, names) - {m} for m, p in modules.items()}
    cycles = _import_cycles(graph)
    assert not cycles, f"import circles: {cycles}"


def test_the_cycle_finder_finds_a_circle_through_a_function_level_import() -> None:
    assert _import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _import_cycles({"a": {"b"}, "b": set()}) == []
