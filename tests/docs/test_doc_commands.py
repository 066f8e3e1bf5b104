"""The README's and the docs' commands, as written, against the command line itself (issue 32,
item 5).

README.md, "Commands", says once how ``rhuna-table`` is reached: ``.venv/bin/rhuna-table …`` in
a checkout, ``rhuna-table …`` on a Pi after ``systemd/install.sh`` (its /usr/local/bin link), in
blocks that begin with ``# on the Pi``. Every command of README.md and docs/*.md
(tests/harness/doc_commands.py finds them; docs/hardware.md has its own test) is written in one
of those forms, resolves (the checkout's entry point exists), parses with the real parser, and
those safe to run here (replay, odds, schema, check-config, preview, history on the demo's
journal) run, in the order the page gives them, and succeed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from companion.cli import build_parser
from tests.harness import ROOT
from tests.harness.doc_commands import DocCommand, commands

#: the pages checked here (docs/hardware.md: tests of its own, with the same extractor)
PAGES = [
    ROOT / "README.md",
    *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "hardware.md"),
]
CHECKOUT = ".venv/bin/rhuna-table"
#: subcommands that only read (or write where they are told, here into tmp): run here
SAFE = {"replay", "odds", "schema", "check-config", "preview"}


def _all() -> list[DocCommand]:
    return [c for page in PAGES for c in commands(page, ROOT)]


ALL = _all()


def test_the_readme_says_once_how_rhuna_table_is_reached() -> None:
    text = (ROOT / "README.md").read_text("utf-8")
    said = [p for p in text.split("\n\n") if p.startswith("**Commands.**")]
    assert len(said) == 1, "README.md: one **Commands.** paragraph"
    for form in ("`.venv/bin/rhuna-table …`", "/usr/local/bin/rhuna-table", "`# on the Pi`"):
        assert form in said[0], form


def test_install_sh_makes_the_link_the_docs_use_on_a_pi(tmp_path) -> None:
    done = subprocess.run(
        ["sh", str(ROOT / "systemd" / "install.sh"), "--dry-run"],
        capture_output=True,
        text=True,
        env={**os.environ, "CONFIG_DIR": str(tmp_path / "etc")},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (
        "would run: ln -sfn /opt/rhuna-table/venv/bin/rhuna-table /usr/local/bin/rhuna-table"
        in done.stdout
    )


def test_the_extractor_finds_the_docs_commands() -> None:
    found = {(c.path, c.args[0] if c.args else "") for c in ALL if c.in_block}
    assert ("README.md", "replay") in found and ("docs/web.md", "accounts") in found
    assert len([c for c in ALL if c.in_block]) >= 30


def _file_like(word: str) -> bool:
    return "/" in word or bool(re.search(r"\.(toml|jsonl?|png|sqlite)$", word))


def test_every_command_is_written_in_the_readme_s_form() -> None:
    """A block's command: ``.venv/bin/rhuna-table``, or plain ``rhuna-table`` in a ``# on the
    Pi`` block; a synopsis (``TABLE``, ``[--force]``, ``…``) may name it plainly. In running
    text a plain ``rhuna-table NAME`` names a subcommand; one given files to work on is a
    command to type, written ``.venv/bin/rhuna-table``."""
    wrong = []
    for c in ALL:
        if c.prefix == CHECKOUT or c.placeholder:
            continue
        if (c.in_block and not (c.pi and c.prefix == "rhuna-table")) or (
            not c.in_block and any(_file_like(a) for a in c.args)
        ):
            wrong.append(c.where)
    assert not wrong, "\n".join(wrong)


def test_every_command_resolves_and_parses() -> None:
    assert os.access(ROOT / CHECKOUT, os.X_OK), f"{CHECKOUT}: make venv"
    bad = []
    for c in ALL:
        if c.placeholder or c.name_only or not c.args:
            continue
        try:
            build_parser(c.args[0]).parse_args(c.args)
        except SystemExit as e:
            if e.code:
                bad.append(c.where)
    assert not bad, "\n".join(bad)


def _runnable(c: DocCommand) -> bool:
    return (
        c.in_block
        and c.prefix == CHECKOUT
        and not c.placeholder
        and bool(c.args)
        and c.args[0] in SAFE
        and "--write" not in c.args
        and not any(a == "-" for a in c.args[1:] if c.args[0] != "preview")
        # an example of a file the reader has (rhuna.toml), not one of the checkout's
        and all((ROOT / a).exists() or a.startswith("/tmp/") for a in c.args if _file_like(a))
    )


@pytest.mark.parametrize(
    "page", [p.name for p in PAGES if any(_runnable(c) for c in commands(p, ROOT))]
)
def test_the_safe_commands_run_as_written(page, tmp_path) -> None:
    """In page order (one writes /tmp/state.json, the next reads it), /tmp/ being this test's
    own folder; through the shell, so a ``> file`` or ``| …`` works as it does for a reader."""
    path = ROOT / page if page == "README.md" else ROOT / "docs" / page
    ran = 0
    for c in commands(path, ROOT):
        if not _runnable(c):
            continue
        line = c.raw.replace("/tmp/", f"{tmp_path}/")
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", line],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "TMPDIR": str(tmp_path)},
        )
        assert done.returncode == 0, f"{c.where}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr, c.where
        ran += 1
    assert ran
    shutil.rmtree(tmp_path, ignore_errors=True)
