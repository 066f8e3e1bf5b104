"""The config checker: every section of ``rhuna.toml`` declared once, as :class:`Key` s, checked one way.

Each section's owner declares its keys here-style (``display/`` for ``[display]``,
``firmware_bridge/`` for ``[[readers]]``, ``hardware/`` for ``[gpio]``, ``tags/`` for
``[registry]``, ``companion/mqtt`` for ``[mqtt]``, ``companion`` for ``[table]``,
``[state]`` and ``[log]``), as :mod:`engine.vocabulary` declares a command's
fields. This module imports nothing of the project's but :mod:`settings.errors` and
:mod:`settings.plain` (text is text: a string with a control character is refused).
:meth:`Section.read` checks a parsed TOML table against the keys and
fills in the defaults. Every problem has one shape, naming the file, the key
and the fix, and is *collected*, not raised, so one ``check-config`` lists all
of them; an unknown key says which known key was probably meant, listing only
that section's keys.

>>> LOG = Section("log", {"level": Key("string", "how much to log", "info",
...                                     enum=("debug", "info", "warning", "error"))})
>>> problems = Problems("rhuna.toml")
>>> LOG.read({"levle": "debug"}, problems)
{'level': 'info'}
>>> print(problems.errors[0])
rhuna.toml: log.levle: unknown key — did you mean level? [log] takes: level
>>> LOG.read({"level": 3}, problems)["level"]
'info'
>>> print(problems.errors[1])
rhuna.toml: log.level: 3 is not text — use one of: debug, info, warning, error

A module checks what a :class:`Key` cannot express (a regular expression, two
keys that exclude each other) itself and reports through :meth:`Problems.add`,
so those errors have the same shape.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from settings.errors import ConfigError
from settings.plain import WHY, shown, unsafe

#: Key types → (what a value must be, the phrase for a value that is not)
_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "string": (lambda v: isinstance(v, str), "is not text"),
    "integer": (lambda v: isinstance(v, int) and not isinstance(v, bool), "is not a whole number"),
    "number": (
        lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "is not a number",
    ),
    "boolean": (lambda v: isinstance(v, bool), "is not true or false"),
    "table": (lambda v: isinstance(v, dict), "is not a table"),
    "array": (lambda v: isinstance(v, list), "is not a list"),
    "any": (lambda v: True, ""),
}


def show(value: Any) -> str:
    """A value as the error quotes it: ``'1883'``, ``3``, ``a table``."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in a config file: where, what, and what to do."""

    file: str
    key: str
    problem: str
    fix: str

    def __str__(self) -> str:
        if not self.key:  # a message that already names its file (a table file's own error)
            return self.problem
        return f"{self.file}: {self.key}: {self.problem} — {self.fix}"


class ConfigErrors(ConfigError):
    """Every problem of one config file; ``errors`` lists each message."""

    def __init__(self, problems: list[Problem] | list[str]) -> None:
        self.problems = [p for p in problems if isinstance(p, Problem)]
        self.errors = [str(p) for p in problems]
        super().__init__("\n".join(self.errors))


class Problems:
    """The problems found so far in one file (``file`` is how errors name it)."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.found: list[Problem] = []

    def add(self, key: str, problem: str, fix: str) -> None:
        self.found.append(Problem(self.file, key, problem, fix))

    def note(self, error: ConfigError) -> None:
        """Keep an error that names its own file and fix (a table file's, a registry's)."""
        if isinstance(error, ConfigErrors):
            self.found.extend(error.problems)
        else:
            self.found.append(Problem(self.file, "", str(error), ""))

    def absorb(self, error: ConfigError) -> None:
        """Keep a :class:`ConfigError` raised by code that stops at its first problem."""
        if isinstance(error, ConfigErrors):
            self.found.extend(error.problems)
            return
        text = str(error).removeprefix(f"{self.file}: ")
        key, _, rest = text.partition(": ")
        problem, _, fix = rest.partition(" — ")
        self.found.append(Problem(self.file, key, problem, fix))

    def error(self, key: str, problem: str, fix: str) -> ConfigError:
        """The same shape as one exception, for code that must stop at once."""
        return ConfigError(str(Problem(self.file, key, problem, fix)))

    @property
    def errors(self) -> list[str]:
        return [str(p) for p in self.found]

    def __len__(self) -> int:
        return len(self.found)

    def raise_if_any(self) -> None:
        if self.found:
            raise ConfigErrors(list(self.found))


class Refused(ValueError):
    """What a :attr:`Key.parse` raises for a value it will not take: the problem and the fix
    ("": the key's own ``problem`` and fix)."""

    def __init__(self, problem: str = "", fix: str = "") -> None:
        super().__init__(problem)
        self.problem = problem
        self.fix = fix


def only(test: Callable[[Any], object]) -> Callable[[Any], Any]:
    """A :attr:`Key.parse` keeping what ``test`` passes, refusing the rest in the key's words."""

    def parse(value: Any) -> Any:
        if not test(value):
            raise Refused()
        return value

    return parse


@dataclass(frozen=True, slots=True)
class Key:
    """One key of a config section: its type, what it is for, its default and its limits."""

    type: str
    description: str
    default: Any = None
    enum: tuple[str, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    #: what to write instead, when the generated fix would not help (``'e.g. port = "/dev/…"'``)
    fix: str | None = None
    #: ``false`` (and a missing key) mean "none": the value is then None
    off: bool = False
    #: the key must be given
    required: bool = False
    #: strings only: an empty or blank one is refused
    nonempty: bool = True
    #: how every value that does not fit is refused, ``{value}`` standing for it
    #: (``"{value} is not a port number"``); None: the type's, the list's or the range's words
    problem: str | None = None
    #: a value that fits → what to keep (``"gpio16"`` → ``"GPIO16"``); raises :class:`Refused`
    parse: Callable[[Any], Any] | None = None

    def how(self, name: str) -> str:
        """The fix for a value of the wrong type or out of range."""
        if self.fix:
            return self.fix
        if self.enum is not None:
            return f"use one of: {', '.join(self.enum)}"
        if self.type == "boolean":
            return "write true or false"
        if self.type in ("integer", "number"):
            low = "" if self.minimum is None else f"{self.minimum:g}"
            high = "" if self.maximum is None else f"{self.maximum:g}"
            kind = "a whole number" if self.type == "integer" else "a number"
            span = (
                f" from {low} to {high}" if low and high else f" of at least {low}" if low else ""
            )
            return f"write {kind}{span}, without quotes"
        if self.type == "string":
            return f'write {name} = "…" ({self.description})'
        if self.type == "table":
            return f"write [{name}] or {name} = {{ … }}"
        return f"see the example config: {self.description}"

    def take(self, value: Any, name: str) -> Any:
        """What to keep of ``value``, or :class:`Refused` (the problem and the fix)."""
        if self.off and (value is False or value is None):
            return None
        why = self.check(value, name)
        if why is not None:
            raise Refused(why, self.how(name))
        if self.parse is None:
            return value
        try:
            return self.parse(value)
        except Refused as r:
            problem = r.problem or (self.problem or "{value} is not allowed").format(
                value=show(value)
            )
            raise Refused(problem, r.fix or self.how(name)) from None

    def check(self, value: Any, name: str) -> str | None:
        """Why ``value`` does not fit, or None."""
        why = self._why(value)
        if why is None or self.problem is None:
            return why
        return self.problem.format(value=show(value))

    def _why(self, value: Any) -> str | None:
        ok, phrase = _TYPES[self.type]
        if not ok(value):
            return f"{show(value)} {phrase}"
        if self.type == "string" and self.nonempty and not value.strip():
            return "is empty"
        bad = unsafe(value) if self.type == "string" else None
        if bad is not None:  # an ESC or a U+202E in a name would reach a terminal or a page
            return f"holds the control character {shown(bad)} {WHY}"
        if self.enum is not None and value not in self.enum:
            return f"{show(value)} is not allowed"
        low = self.minimum is not None and value < self.minimum
        high = self.maximum is not None and value > self.maximum
        if self.type in ("integer", "number") and (low or high):
            return f"{show(value)} is out of range"
        return None


@dataclass(frozen=True, slots=True)
class Section:
    """A TOML table of the config: its name as errors show it (``mqtt.tls``) and its keys."""

    name: str
    keys: Mapping[str, Key] = field(default_factory=dict)
    #: keys a section accepts without checking them here (another owner checks them)
    passthrough: tuple[str, ...] = ()
    #: how the "did you mean" names the section (default ``[name]``)
    label: str | None = None

    def known(self) -> tuple[str, ...]:
        return (*self.keys, *self.passthrough)

    def unknown(self, name: str) -> tuple[str, str]:
        """(problem, fix) for an unknown key: the closest known key, then this section's keys."""
        known = self.known()
        import difflib  # only for a key nobody knows: not on every start (the CLI's cold start)

        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6) or [
            k for k in known if len(k) > 1 and (name.startswith(k) or k.startswith(name))
        ]
        listing = f"{self.label or f'[{self.name}]'} takes: {', '.join(known) or 'no keys'}"
        return "unknown key", (f"did you mean {close[0]}? {listing}" if close else listing)

    def read(self, value: Any, problems: Problems) -> dict[str, Any]:
        """Check ``value`` (a parsed TOML table) key by key; every key in the result, defaults
        filled in (and, for a key that is wrong, its default), every problem in ``problems``."""
        out = {k: key.default for k, key in self.keys.items()}
        if value is None:
            value = {}
        if not isinstance(value, dict):
            problems.add(self.name, f"{show(value)} is not a table", f"write [{self.name}]")
            return out
        for name, v in value.items():
            if name in self.passthrough:
                out[name] = v
                continue
            if name not in self.keys:
                problems.add(f"{self.name}.{name}", *self.unknown(name))
                continue
            out[name], _ = self.value(value, name, problems)
        for name, key in self.keys.items():
            if key.required and name not in value:
                problems.add(f"{self.name}.{name}", "missing", key.how(name))
        return out

    def value(self, data: Mapping[str, Any], name: str, problems: Problems) -> tuple[Any, bool]:
        """One key of ``data`` (a table), checked: (what to keep, True), or (its default,
        False) with the problem in ``problems``. A missing key gives its default (a required
        one: not ok, "missing"); unknown keys are the caller's (:meth:`unknown`)."""
        key = self.keys[name]
        if name not in data:
            if key.required:
                problems.add(f"{self.name}.{name}", "missing", key.how(name))
            return key.default, not key.required
        try:
            return key.take(data[name], name), True
        except Refused as r:
            problems.add(f"{self.name}.{name}", r.problem, r.fix)
            return key.default, False


def unknown_key(
    where: str, name: str, known: Iterable[str], label: str | None = None
) -> ConfigError:
    """The one error for an unknown key outside ``rhuna.toml`` too (the table file, its rules):
    ``<file>: <table>.<name>: unknown key — did you mean …? [<table>] takes: …``.

    ``where`` is ``"<file>: <table>"``; ``label`` names the table in the listing (default
    ``[<table>]``, ``[[<table>]]`` for an entry of an array such as ``heroes[0]``).

    >>> print(unknown_key("t.toml: heroes[0]", "favr", ["id", "favor"]))
    t.toml: heroes[0].favr: unknown key — did you mean favor? [[heroes]] takes: id, favor
    """
    head, _, path = where.rpartition(": ")
    if path.startswith("[") and path.endswith("]"):  # "[time]": the table itself
        path = path.strip("[]")
    if label is None:  # an entry of an array of tables is listed as [[heroes]]
        array = re.sub(r"\[\d+\]$", "", path)
        label = f"[[{array}]]" if array != path else f"[{path}]"
    problem, fix = Section(path, {k: Key("any", k) for k in known}, label=label).unknown(name)
    return ConfigError(f"{head + ': ' if head else ''}{path}.{name}: {problem} — {fix}")
