"""Hostile input, answered: one guard for every command that arrives as bytes or text.

Every MQTT payload and every ``--commands`` line goes through :func:`parse`
before it is a command; every command the table loop takes (from any source,
scripts included) goes through :func:`check`. What does not fit becomes one
``malformed`` :class:`~engine.errors.RuleViolation` naming the limit and the
fix — never an exception in a reader thread, never a "store" error, never a
payload that cannot be published again.

The limits are the rules data's ``[limits]`` (engine/data/rules.toml, listed
with their reasons in docs/commands.md, "Limits"):

- ``payload_bytes``: one payload or one line, before it is parsed;
- ``depth``: arrays and objects nested in one another;
- ``string_length`` and ``array_items``: any one string, and any one array or object;
- ``integer``: the magnitude of any whole number (what a JavaScript page can hold);

and text must be UTF-8 that encodes back (no lone UTF-16 surrogate such as
``"\\ud83d"``, which is valid JSON but no character), with no NaN or Infinity, and plain
text: no control character but a newline, no bidi override (:mod:`settings.plain`).

>>> parse(b'{"cmd": "undo"}')
{'cmd': 'undo'}
>>> parse(b"[" * 5000).violation.message
'nested deeper than 6 (limits.depth)'
>>> parse(b'{"cmd": "\\\\ud83d"}').violation.message
"'cmd' holds a lone UTF-16 surrogate (\\\\ud83d), which is no character"
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine.errors import RuleViolation
from engine.rules import default_rules
from settings.plain import shown, unsafe

FIX = 'send one JSON object such as {"cmd": "undo"} (docs/commands.md, "Limits")'


@dataclass(frozen=True, slots=True)
class Limits:
    """The ``[limits]`` of the rules data that bound an input before the engine sees it."""

    payload_bytes: int
    depth: int
    string_length: int
    array_items: int
    integer: int

    @classmethod
    def shipped(cls) -> Limits:
        data = default_rules()["limits"]
        return cls(**{k: int(data[k]) for k in cls.__slots__})


#: the shipped limits (a table cannot change them: engine.rules.check_rules)
LIMITS = Limits.shipped()


@dataclass(frozen=True, slots=True)
class Malformed:
    """An input refused before it became a command."""

    violation: RuleViolation


def refusal(message: str, fix: str = FIX, field: str | None = None) -> Malformed:
    return Malformed(RuleViolation(message, field=field, fix=fix, code="malformed"))


def parse(data: bytes | str, limits: Limits = LIMITS, *, what: str = "the payload") -> Any:
    """``data`` as JSON, checked by :func:`check`; or a :class:`Malformed` saying why not.

    Never raises, whatever ``data`` holds.
    """
    value = load(data, limits, what=what)
    if isinstance(value, Malformed):
        return value
    problem = check(value, limits)
    return value if problem is None else problem


def load(data: bytes | str, limits: Limits = LIMITS, *, what: str = "the payload") -> Any:
    """``data`` as JSON (size, UTF-8 and syntax checked, not yet :func:`check`), or a
    :class:`Malformed`. Never raises."""
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > limits.payload_bytes:
        return refusal(
            f"{what} is {size} bytes, more than {limits.payload_bytes} (limits.payload_bytes)"
        )
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            return refusal(f"{what} is not UTF-8 text (byte {e.start}: {data[e.start]:#04x})")
    else:
        text = data
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        return refusal(f"{what} is not JSON ({e.msg}, line {e.lineno} column {e.colno})")
    except RecursionError:
        return _too_deep(limits)
    except ValueError as e:  # NaN/Infinity, or an integer of more digits than Python reads
        if "digits" in str(e):
            return refusal(f"{what} has a number of thousands of digits (limits.integer)")
        return refusal(f"{what} is not JSON the table takes ({e})")


def check(value: Any, limits: Limits = LIMITS) -> Malformed | None:
    """Depth, sizes, numbers and text of a JSON value (as :func:`json.loads` gives it, or a
    command a script built); None when it fits. Iterative: any depth is safe to check."""
    stack: list[tuple[Any, int, str | None]] = [(value, 1, None)]
    while stack:
        item, depth, where = stack.pop()
        if isinstance(item, str):
            problem = _check_text(item, limits, where)
            if problem is not None:
                return problem
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if abs(item) > limits.integer:
                return refusal(
                    f"{_name(where)} is {_short(item)}, beyond ±{limits.integer} (limits.integer)",
                    field=where,
                )
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return refusal(f"{_name(where)} is {item}, which is not JSON", field=where)
        elif isinstance(item, (dict, list, tuple)) or hasattr(item, "items"):
            if depth > limits.depth:
                return _too_deep(limits)
            if len(item) > limits.array_items:
                return refusal(
                    f"{_name(where)} has {len(item)} items, more than {limits.array_items}"
                    " (limits.array_items)",
                    field=where,
                )
            if isinstance(item, (list, tuple)):
                stack.extend((v, depth + 1, where) for v in item)
            else:
                for key, v in item.items():
                    if not isinstance(key, str):
                        return refusal(f"a key of {_name(where)} is not text", field=where)
                    problem = _check_text(key, limits, where)
                    if problem is not None:
                        return problem
                    stack.append((v, depth + 1, key if where is None else where))
        else:
            return refusal(
                f"{_name(where)} is a {type(item).__name__}, not a JSON value", field=where
            )
    return None


def _check_text(text: str, limits: Limits, where: str | None) -> Malformed | None:
    if len(text) > limits.string_length:
        return refusal(
            f"{_name(where)} holds {len(text)} characters of text, more than"
            f" {limits.string_length} (limits.string_length)",
            # the fix for this string, not the generic one about JSON objects
            fix=f"shorten it to at most {limits.string_length} characters (a note: split it"
            " into two notes)",
            field=where,
        )
    bad = unsafe(text)
    if bad is not None:
        return refusal(
            f"{_name(where)} holds the control character {shown(bad)} (a terminal escape, a"
            " bell, or a bidi override that reverses the text around it): text is text",
            fix="send plain text: a name or a note without control characters (a newline is"
            ' the one kept), docs/commands.md "Limits"',
            field=where,
        )
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as e:
            bad = text[e.start]
            return refusal(
                f"{_name(where)} holds a lone UTF-16 surrogate (\\u{ord(bad):04x}), which is"
                " no character",
                fix="send the character itself, or its surrogate pair (\\ud83d\\ude00)",
                field=where,
            )
    return None


def _too_deep(limits: Limits) -> Malformed:
    return refusal(f"nested deeper than {limits.depth} (limits.depth)")


def _name(where: str | None) -> str:
    return "the command" if where is None else repr(where)


def _short(n: int) -> str:
    return str(n) if n.bit_length() <= 64 else f"a {n.bit_length()}-bit number"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
