"""The shared harness (tests/harness) and the guard against unexpected ERROR logs."""

from __future__ import annotations

import doctest
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tests.harness
from tests.harness import ROOT, wait_until


def test_the_harness_examples_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = doctest.testmod(tests.harness)
    assert result.attempted > 0 and result.failed == 0


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


def test_no_test_asserts_on_wall_time() -> None:
    """Figures are the benchmarks' (benchmarks/*.py, with their targets): a test that asserts
    ``time.monotonic() - started < x`` fails on a loaded machine without a bug."""
    import re

    timed = re.compile(r"assert[^\n]*(?:monotonic|perf_counter)\(\) - \w+ *<|assert took <")
    offenders = [
        f"{p.relative_to(ROOT)}: {m.group(0)}"
        for p in _python_files("tests")
        for m in timed.finditer(p.read_text("utf-8"))
    ]
    assert not offenders, offenders
