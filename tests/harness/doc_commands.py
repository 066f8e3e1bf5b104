"""The commands the README and the docs tell a reader to type, found in their Markdown.

Shared by the tests that check the docs' commands (tests/docs/test_doc_commands.py: README.md and
docs/*.md; a docs/hardware.md test may use it too). :func:`blocks` gives each fenced code
block; :func:`commands` each ``rhuna-table`` command line in them (``$`` prompts, comments and
``\\`` continuations handled) and each inline code span that is a command, with how it reaches
``rhuna-table`` (:attr:`DocCommand.prefix`) and its arguments.

README.md, "Commands", says how commands are written: ``.venv/bin/rhuna-table …`` from a
checkout; ``rhuna-table …`` on a Pi after ``systemd/install.sh`` (its link in /usr/local/bin),
in blocks whose first line is a ``# on the Pi`` comment.

>>> text = "Try `.venv/bin/rhuna-table odds x.toml`.\\n```sh\\n# on the Pi\\n$ rhuna-table run  # go\\n```\\n"
>>> [(c.line, c.prefix, c.args, c.pi) for c in commands_in(text, "x.md")]
[(1, '.venv/bin/rhuna-table', ['odds', 'x.toml'], False), (4, 'rhuna-table', ['run'], True)]
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: how a command reaches the entry point: the checkout's venv, the installed Pi's link
#: (/usr/local/bin), or the install's venv itself
PREFIXES = (".venv/bin/rhuna-table", "/opt/rhuna-table/venv/bin/rhuna-table", "rhuna-table")
_FENCE = re.compile(r"^(\s*)(```+|~~~+)(.*)$")
_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
#: a Pi block's first line
PI_MARK = re.compile(r"^\s*#.*\bon the Pi\b", re.IGNORECASE)


@dataclass(frozen=True)
class Block:
    path: str
    #: the line number of the block's first content line
    line: int
    lang: str
    lines: list[str]

    @property
    def pi(self) -> bool:
        """Whether the block is commands for an installed Pi (``# on the Pi`` first)."""
        return bool(self.lines) and bool(PI_MARK.match(self.lines[0]))


@dataclass(frozen=True)
class DocCommand:
    path: str
    line: int
    #: the whole command as written (after the prompt, without its comment)
    text: str
    prefix: str
    #: the words after the entry point, as a shell splits them
    args: list[str]
    in_block: bool
    pi: bool
    #: the command line had more: a redirection, a pipe, another command after it
    compound: bool
    #: the line exactly as written (after the prompt), for a shell to run
    raw: str = ""

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"

    @property
    def name_only(self) -> bool:
        """Running text naming a subcommand (``rhuna-table accounts urls``), not a command."""
        return not self.in_block and all(re.fullmatch(r"[a-z][a-z-]*", a) for a in self.args)

    @property
    def placeholder(self) -> bool:
        """A synopsis, not a command to run as it is (``…``, ``<table>``, ``[--force]``, ``A|B``)."""
        return any(
            any(mark in a for mark in "…<>|()") or a.startswith("[") or a.isupper()
            for a in self.args
        )


def blocks(text: str, path: str) -> Iterator[Block]:
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(2), m.group(3).strip().split(" ")[0]
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence[:3]):
            body.append(lines[i])
            i += 1
        yield Block(path, start + 1, lang, body)
        i += 1


def _logical_lines(block: Block) -> Iterator[tuple[int, str]]:
    """(line number, text) with ``\\`` continuations joined and ``$ `` prompts dropped."""
    pending, first = "", 0
    for n, raw in enumerate(block.lines, block.line):
        line = raw.rstrip()
        if not pending:
            first = n
            stripped = line.lstrip()
            if stripped.startswith("$ "):
                line = stripped[2:]
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        yield first, pending + line
        pending = ""
    if pending:
        yield first, pending


def _command(path: str, n: int, text: str, in_block: bool, pi: bool) -> DocCommand | None:
    try:
        words = shlex.split(text, comments=True)
    except ValueError:
        return None
    if not words:
        return None
    joined = shlex.join(words)
    for i, word in enumerate(words):
        if word not in PREFIXES and not (in_block and word.endswith("/bin/rhuna-table")):
            continue
        if words[:i] not in ([], ["sudo"]) and not (
            len(words[:i]) == 3 and words[:2] == ["sudo", "-u"]
        ):
            return None  # not the command run (journalctl -u rhuna-table, systemctl …)
        rest: list[str] = []
        compound = False
        for w in words[i + 1 :]:
            if w in ("|", "||", "&&", ";", "&", "<") or w.startswith((">", "2>")):
                compound = True
                break
            rest.append(w)
        return DocCommand(path, n, joined, word, rest, in_block, pi, compound, text.strip())
    return None


def commands_in(text: str, path: str) -> list[DocCommand]:
    """Every rhuna-table command of one Markdown text: in code blocks, and inline spans that
    start with one."""
    out: list[DocCommand] = []
    fenced: set[int] = set()
    for block in blocks(text, path):
        fenced.update(range(block.line - 1, block.line + len(block.lines) + 1))
        if block.lang not in ("", "sh", "bash", "shell", "console", "text"):
            continue
        for n, line in _logical_lines(block):
            if "rhuna-table" not in line:
                continue
            found = _command(path, n, line, True, block.pi)
            if found is not None:
                out.append(found)
    for n, line in enumerate(text.splitlines(), 1):
        if n in fenced:
            continue
        for span in _SPAN.findall(line):
            if "rhuna-table" in span:
                found = _command(path, n, span, False, False)
                if found is not None:
                    out.append(found)
    return sorted(out, key=lambda c: c.line)


def commands(path: Path, root: Path) -> list[DocCommand]:
    return commands_in(path.read_text("utf-8"), str(path.relative_to(root)))
