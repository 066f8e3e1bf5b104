"""Text is text: the characters no command may carry, and how every output shows them.

A control character (C0 but a newline, DEL, C1) or a bidi override (U+202A–U+202E,
U+2066–U+2069) in a name or a note would retitle the WorldKeeper's terminal
(``\\x1b]0;…\\x07``), ring its bell, or reverse the text around it on a page. Commands are
refused at the boundary (companion/table/inputs.py); a file people wrote (a table file, its
rules, a config) is input too, refused at load by :func:`check_file` naming the key; what
older journals still hold is escaped on every output (``rhuna-table history``, the CSV
export, the panel, the pages) by :func:`shown`.

>>> unsafe("a note\\x1b]0;pwned\\x07")
'\\x1b'
>>> shown("a\\x1b]0;pwned\\x07 \\u202eevil")
'a\\\\x1b]0;pwned\\\\x07 \\\\u202eevil'
>>> shown("two\\nlines") == "two\\nlines" and unsafe("two\\nlines") is None
True
>>> try:
...     check_file({"heroes": [{"id": "aria", "name": "Aria\\u202e"}]}, "t.toml")
... except ConfigError as e:
...     print(str(e).partition(" (")[0])
t.toml: heroes[0].name holds the control character \\u202e
"""

from __future__ import annotations

import re
from typing import Any

from settings.errors import ConfigError

__all__ = ["UNSAFE", "check_file", "shown", "unsafe"]

#: a control character but a newline, or a bidi embedding, override or isolate
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def unsafe(text: str) -> str | None:
    """The first character of ``text`` no command may carry; None when it is plain text."""
    if text.isprintable():  # the common case, in C: no control, no bidi control
        return None
    found = UNSAFE.search(text)
    return None if found is None else found.group()


def shown(text: str, keep: str = "") -> str:
    """``text`` with each unsafe character written as its escape (``\\x1b``, ``\\u202e``),
    but those in ``keep`` (a CSV cell keeps its tab and carriage return, quoted)."""
    if text.isprintable():
        return text
    return UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


#: how a file's value with an unsafe character is refused: the why, then the fix
WHY = (
    "(a terminal escape, a bell, or a bidi override that reverses the text around it): text is text"
)
FIX = "write it as plain text, without control characters (a newline is the one kept)"


def check_file(data: Any, source: str, where: str = "") -> None:
    """Refuse ``data`` (a parsed TOML file: a table file, its rules) when a key or a string
    in it holds an unsafe character: a :class:`ConfigError` naming ``source``, the key
    (``heroes[0].name``, itself escaped) and the fix. A TOML ``"\\u202e"`` or ``"\\e"``
    is such a character once parsed, so the parsed data is what is checked."""
    if isinstance(data, str):
        bad = unsafe(data)
        if bad is not None:
            raise ConfigError(
                f"{source}: {where or 'a value'} holds the control character {shown(bad)}"
                f" {WHY} — {FIX}"
            )
    elif isinstance(data, dict):
        for key, value in data.items():
            path = f"{where}.{shown(key)}" if where else shown(key)
            bad = unsafe(key)
            if bad is not None:
                raise ConfigError(
                    f"{source}: the key {path} holds the control character {shown(bad)}"
                    f" {WHY} — {FIX}"
                )
            check_file(value, source, path)
    elif isinstance(data, list):
        for i, value in enumerate(data):
            check_file(value, source, f"{where}[{i}]")
