"""The shared harness (tests/harness) and the guard against unexpected ERROR logs."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tests.harness
from tests.harness import ROOT, wait_until


def test_the_harness_examples_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The package's examples and every submodule's (tests/harness/*.py)."""
    monkeypatch.chdir(ROOT)
    names = [m.name for m in pkgutil.iter_modules(tests.harness.__path__, "tests.harness.")]
    assert "tests.harness.big_bag" in names
    for module in [tests.harness, *map(importlib.import_module, names)]:
        result = doctest.testmod(module)
        assert result.failed == 0, module.__name__
    assert doctest.testmod(tests.harness).attempted > 0


def test_wait_until_names_what_it_waited_for() -> None:
    with pytest.raises(AssertionError, match="waiting for the moon"):
        wait_until(lambda: False, "the moon", timeout=0.05)


def test_an_error_log_fails_a_test_unless_expected(tmp_path: Path) -> None:
    """Four tests in a scratch project with this conftest: only the unexpected ERROR fails."""
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text("utf-8"))
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    error_log: expected\n")
    (tmp_path / "test_logs.py").write_text(
        textwrap.dedent(
            """
            import logging
            import pytest

            def test_unexpected():
                logging.getLogger("rhuna.x").error("boom")

            @pytest.mark.error_log
            def test_expected():
                logging.getLogger("rhuna.x").error("boom")

            def test_read_by_caplog(caplog):
                logging.getLogger("rhuna.x").error("boom")
                assert "boom" in caplog.text

            def test_warning_is_fine():
                logging.getLogger("rhuna.x").warning("careful")
            """
        )
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "4 passed, 1 error" in run.stdout, run.stdout
    assert "unexpected ERROR log (1): rhuna.x: boom" in run.stdout


# --- the layout the harness keeps (issue 18 item 8) ------------------------------------------

TESTS = ROOT / "tests"


def _python_files(*folders: str) -> list[Path]:
    """The Python files of ``folders``, but this one (it spells what it looks for)."""
    here = Path(__file__).resolve()
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py") if p.resolve() != here)


def test_every_test_folder_is_a_package_with_its_own_conftest() -> None:
    folders = {p.parent for p in TESTS.rglob("test_*.py")} - {TESTS}
    assert len(folders) >= 10, folders
    for folder in sorted(folders):
        where = folder.relative_to(ROOT)
        assert (folder / "__init__.py").is_file(), f"{where} has no __init__.py"
        assert (folder / "conftest.py").is_file(), f"{where} has no conftest.py"


def test_nothing_imports_from_a_conftest() -> None:
    """Shared helpers live in tests.harness; a conftest holds fixtures, never an import's source."""
    offenders = [
        str(p.relative_to(ROOT))
        for p in _python_files("tests", "benchmarks", "scripts")
        if ".conftest import" in p.read_text("utf-8") or "import conftest" in p.read_text("utf-8")
    ]
    assert not offenders, offenders


def test_the_error_log_guard_is_the_root_conftest_s_and_nobody_replaces_it() -> None:
    """The autouse guard lives in tests/conftest.py, so it runs in every folder below it."""
    root = (TESTS / "conftest.py").read_text("utf-8")
    assert "@pytest.fixture(autouse=True)\ndef _no_unexpected_error_log(" in root
    for conftest in sorted(TESTS.rglob("conftest.py")):
        if conftest != TESTS / "conftest.py":
            assert "_no_unexpected_error_log" not in conftest.read_text("utf-8"), conftest


def test_there_is_one_wait_until() -> None:
    defined = [
        str(p.relative_to(ROOT))
        for p in _python_files("tests", "benchmarks")
        if "def wait_until(" in p.read_text("utf-8")
    ]
    assert defined == ["tests/harness/__init__.py"]


#: a test judging the machine's speed (issue 39 item 1): a duration compared with a number,
#: either way (``… - started < x`` breaks when the machine is slow, ``> 1.0`` when the test's
#: own process is late to look); a page left alone for a while (``wait_for_timeout``) or a
#: sleep, then a look: each waits on a condition instead (a reply, a count, the page's own
#: paint count or clock)
WALL_TIME = re.compile(
    r"assert[^\n]*(?:monotonic|perf_counter|time\.time)\(\) *- *[\w.]+ *[<>]"
    r"|assert took *[<>]"
    r"|wait_for_timeout\("
    r"|sleep\([^)\n]+\)[^\n]*\n[ \t]*assert "  # sleep(): a vendor's call, no pause
)
#: the one use that remains, matched exactly, and why it cannot flake: a lower bound on a wait
#: the code under test must make (select() honouring the port's timeout), which a slow or
#: loaded machine only lengthens
WALL_TIME_ALLOWED = {
    ("tests/firmware_bridge/test_serial_read.py", "assert time.monotonic() - t0 >"),
}


def test_no_test_asserts_on_wall_time() -> None:
    """Figures are the benchmarks' (benchmarks/*.py, with their targets): a test that asserts
    ``time.monotonic() - started < x`` fails on a loaded machine without a bug."""
    found = [
        (str(p.relative_to(ROOT)), m.group(0))
        for p in _python_files("tests")
        for m in WALL_TIME.finditer(p.read_text("utf-8"))
    ]
    offenders = [f for f in found if f not in WALL_TIME_ALLOWED]
    assert not offenders, offenders
    assert sorted(WALL_TIME_ALLOWED) == sorted(set(found)), "an allowed use went: drop it"


def test_the_wall_time_search_finds_each_shape_it_names() -> None:
    """Each shape issue 39 took out of the tests is still found (else the search above is
    green for nothing)."""
    found = [
        "assert time.monotonic() - shown_at > 1.0",
        "assert time.perf_counter() - t0 < 0.5",
        "assert took < 2",
        "page.wait_for_timeout(1500)\n    assert page.evaluate(ORDER) == moved",
        "time.sleep(0.2)\n        assert len(s._conns) <= 8",
    ]
    missed = [text for text in found if not WALL_TIME.search(text)]
    assert not missed, missed
    kept = [
        "deadline = time.monotonic() + WAIT",  # a deadline, not a judgement
        "worker.stop()  # the vendor's sleep() -> module_exit()\n    assert open_descriptors(e)",
        "wait_until(lambda: not s._conns, 'the server to let go')",
    ]
    assert not [text for text in kept if WALL_TIME.search(text)], kept


#: calls that import a module or run a file named by a string
_IMPORTING_CALLS = {
    "import_module",
    "__import__",
    "spec_from_file_location",
    "run_path",
    "run_module",
}
_TEST_MODULE = re.compile(r"(?:^|[./\\])test_\w+(?:\.py)?$")


def _is_test_module(dotted: str) -> bool:
    return any(part.startswith("test_") for part in dotted.split("."))


def imported_test_modules(source: str) -> list[str]:
    """The test modules (``test_*.py``) a file's source imports: ``import``, ``from … import``
    (absolute or relative, a module or a name from one), and importlib / runpy / ``__import__``
    calls naming one in a string, each as written."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if _is_test_module(a.name)]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if _is_test_module(node.module or ""):
                found.append(module)
            base = module if node.module else module[:-1]  # `from . import test_x`: .test_x
            found += [f"{base}.{a.name}" for a in node.names if a.name.startswith("test_")]
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in _IMPORTING_CALLS:
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    found += [
                        c.value
                        for c in ast.walk(arg)
                        if isinstance(c, ast.Constant)
                        and isinstance(c.value, str)
                        and _TEST_MODULE.search(c.value)
                    ]
    return found


def files_importing_test_modules(root: Path) -> list[str]:
    """Every ``file: module`` where a file of tests/ or benchmarks/ imports a test module."""
    return [
        f"{p.relative_to(root)}: {m}"
        for folder in ("tests", "benchmarks")
        for p in sorted((root / folder).rglob("*.py"))
        for m in imported_test_modules(p.read_text("utf-8"))
    ]


def test_the_import_check_sees_every_way_to_import_a_test_module() -> None:
    caught = imported_test_modules(
        textwrap.dedent(
            """
            import tests.web.test_web_gm
            import tests.web.test_web_gm as gm
            from tests.web.test_web_gm import PHONE, AccountsBroker
            from tests.companion.mqtt import test_accounts_pi as pi
            from .test_store_crash import Running
            from . import test_faults
            def later():
                from tests.companion.service.test_faults import assert_state_is_the_journal_replayed
            importlib.import_module("tests.engine.test_odds_montecarlo")
            importlib.util.spec_from_file_location("x", ROOT / "tests" / "web" / "test_web_gm.py")
            """
        )
    )
    assert caught == [
        "tests.web.test_web_gm",
        "tests.web.test_web_gm",
        "tests.web.test_web_gm",
        "tests.companion.mqtt.test_accounts_pi",
        ".test_store_crash",
        ".test_faults",
        "tests.companion.service.test_faults",
        "tests.engine.test_odds_montecarlo",
        "test_web_gm.py",
    ], caught
    harmless = """
        import tests.harness
        import unittest, pytest
        from tests.harness.web import PHONE
        from tests.harness import views as dv
        from testing import x
        importlib.util.spec_from_file_location("soak", ROOT / "benchmarks" / "soak.py")
        name = "test_web_gm.py"
        """
    assert imported_test_modules(textwrap.dedent(harmless)) == []


def test_no_test_module_or_benchmark_imports_a_test_module() -> None:
    """Shared helpers live in tests.harness (a benchmark imports nothing else of tests/): a
    test module imported by another is collected twice over and ties two test files together."""
    offenders = files_importing_test_modules(ROOT)
    assert not offenders, offenders


def test_free_port_never_hands_out_a_port_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two calls in a row get two ports even when the kernel gives the second bind the port
    the first just closed (as it did in a fresh-clone CI run: a broker's plain and websockets
    listeners on one port). A stand-in socket replays what the kernel gave there."""
    import tests.harness.broker as broker

    given = iter([41001, 41001, 41001, 41002])

    class Kernel:
        def __enter__(self) -> Kernel:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def bind(self, address: tuple[str, int]) -> None:
            assert address == ("127.0.0.1", 0)
            self.port = next(given)

        def getsockname(self) -> tuple[str, int]:
            return ("127.0.0.1", self.port)

    class Sockets:  # the broker module's ``socket``, this test's only
        socket = Kernel

    monkeypatch.setattr(broker, "_HANDED", set())
    monkeypatch.setattr(broker, "socket", Sockets)
    assert [broker.free_port(), broker.free_port()] == [41001, 41002]


def test_a_broker_never_takes_another_process_listener_for_its_own(tmp_path, monkeypatch):
    """Between ``free_port``'s probe and Mosquitto's bind another xdist worker may take the
    port: a broker must not return on a port that answers for someone else (a fresh-clone run
    lost every message of test_mqtt_claim so: ``got []``), but start on another."""
    import socket

    from tests.harness import broker as harness

    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        taken = other.getsockname()[1]
        given = iter([taken])
        real = harness.free_port
        monkeypatch.setattr(harness, "free_port", lambda: next(given, None) or real())
        b = harness.Broker(tmp_path / "broker").start()
        try:
            assert b.port != taken
            assert b.proc is not None and harness.listens(b.proc.pid, b.port)
            assert not harness.listens(b.proc.pid, taken)
        finally:
            b.stop()


def test_a_web_broker_returns_once_every_listener_listens_and_never_starts_twice(tmp_path):
    """``start`` returns once the websockets listener (the pages' server, bound after the plain
    one) listens too: a page opened at once was refused (stop 49's CI run, the axe matrix's
    ``offline`` cells). A second ``start`` of a running broker fails rather than leave the
    first orphaned, serving the pages a test then stopped."""
    from tests.harness import broker as harness
    from tests.harness.web import WebBroker

    b = WebBroker(tmp_path / "broker")
    assert b.ports() == [b.port, b.ws_port]
    b.start()
    try:
        assert b.proc is not None
        pid = b.proc.pid
        assert all(harness.listens(pid, port) for port in b.ports())
        with pytest.raises(pytest.fail.Exception, match="running already"):
            b.start()
        assert b.proc is not None and b.proc.pid == pid and b.running
    finally:
        b.stop()
    assert not b.running
    b.start()  # again on the same ports, once stopped
    try:
        assert b.proc is not None and harness.listens(b.proc.pid, b.ws_port)
    finally:
        b.stop()
