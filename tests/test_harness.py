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
