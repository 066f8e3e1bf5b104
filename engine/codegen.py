"""The commands' types for Python, generated from the command specs: engine/contracts/commands.py.

One ``TypedDict`` per command of :data:`engine.vocabulary.REGISTRY` (the specs that also write
``docs/commands.schema.json``) and one constructor, which takes every field by keyword and
returns the dict with its keys in the order given, so a producer's command is the one it wrote.
A test keeps the module current (tests/engine/contracts/test_commands.py); regenerate it with
``.venv/bin/python -m engine.codegen``.

>>> import engine  # registers every command
>>> print(commands_module().split("def draw(")[1].split(":")[0])
**fields
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from engine.vocabulary import REGISTRY, TRANSPORT_FIELDS, CommandSpec, Field

MODULE = Path(__file__).resolve().parent / "contracts" / "commands.py"

#: a JSON type of :class:`~engine.vocabulary.Field` → the Python type a producer gives
PYTHON = {
    "string": "str",
    "integer": "int",
    "boolean": "bool",
    "object": "dict[str, Any]",
}

HEADER = '''\
"""Every command of the vocabulary as a ``TypedDict``, and its constructor.

Generated from the command specs (engine/vocabulary.py's ``REGISTRY``, which also write
docs/commands.schema.json) by ``python -m engine.codegen``: do not edit. A test keeps it
current and equal to the published schema (tests/engine/contracts/test_commands.py).

A producer builds a command through its constructor, every field by keyword; the dict keeps
the order the fields were given in, and a key renamed here is a mypy error at each producer:

>>> draw(hero="aria", token="aria.ember.skill")
{'cmd': 'draw', 'hero': 'aria', 'token': 'aria.ember.skill'}

``<Name>Fields`` are the fields, ``<Name>Command`` the whole command (with ``cmd``); an enum
field is a ``str`` here (the engine refuses a value outside it, naming the field). ``id`` and
``source`` (:class:`Transport`) are accepted on every command and ignored by the rules.
``<Name>Args`` is what the command's handler reads once the engine has parsed it (every field,
defaults filled in; an enum field is its ``Literal``), so a field renamed here is a mypy error
in the handler too.

Pure typing: importing it registers nothing and imports no rule family.
"""

from typing import Any, Literal, NotRequired, TypedDict, Unpack


class Transport(TypedDict, total=False):
    """The transport fields of every command: a request id (echoed in the reply) and where the
    command came from; the engine ignores both."""

    id: str | int
    source: str
'''


def _class_name(name: str) -> str:
    return "".join(part.title() for part in name.split("_"))


def _type(f: Field) -> str:
    if f.type == "array":
        assert f.items is not None
        return f"list[{PYTHON[f.items]}]"
    return PYTHON[f.type]


def _comment(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, 100, initial_indent=f"{indent}#: ", subsequent_indent=f"{indent}#: ")


def _docstring(text: str, indent: str) -> list[str]:
    lines = textwrap.wrap(
        f'"""{text}"""', 96 - len(indent), break_long_words=False, break_on_hyphens=False
    )
    return [f"{indent}{line}" for line in lines]


def _command(spec: CommandSpec) -> list[str]:
    cls = _class_name(spec.name)
    summary = spec.summary + (f" Rules: {', '.join(spec.rules)}." if spec.rules else "")
    out = ["", "", f"class {cls}Fields(Transport):"]
    out += _docstring(f"The fields of ``{spec.name}``: {summary}", "    ")
    body = [(k, f) for k, f in spec.fields.items() if k not in TRANSPORT_FIELDS]
    if body:
        out.append("")
    for key, f in body:
        out += _comment(f.description, "    ")
        kind = _type(f) if f.required else f"NotRequired[{_type(f)}]"
        out.append(f"    {key}: {kind}")
    out += ["", "", f"class {cls}Command({cls}Fields):"]
    out += _docstring(f"The command ``{spec.name}``.", "    ")
    out += ["", f'    cmd: Literal["{spec.name}"]']
    head = f"def {spec.name}(**fields: Unpack[{cls}Fields]) -> {cls}Command:"
    if len(head) > 100:  # as ruff format writes it
        head = f"def {spec.name}(\n    **fields: Unpack[{cls}Fields],\n) -> {cls}Command:"
    out += ["", "", head]
    out += _docstring(f"``{spec.name}``: {spec.summary}", "    ")
    out.append(f'    return {{"cmd": "{spec.name}", **fields}}')
    out += ["", "", f"class {cls}Args(TypedDict):"]
    out += _docstring(
        f"What the handler of ``{spec.name}`` reads: every field, a default for each one"
        " omitted (None when it has none), an array as a tuple.",
        "    ",
    )
    if spec.fields:
        out.append("")
    for key, f in spec.fields.items():
        kind = _parsed(f) if f.enum is None else _literal(f.enum)
        out.append(
            f"    {key}: {kind}"
            if f.required or f.default is not None
            else f"    {key}: {kind} | None"
        )
    return out


def _literal(values: tuple[str, ...]) -> str:
    """An enum field's values as a ``Literal`` (a StrEnum's member: its value)."""
    return "Literal[" + ", ".join(f'"{getattr(v, "value", v)}"' for v in values) + "]"


def _parsed(f: Field) -> str:
    """A field's type once parsed (engine.vocabulary.parse_command: an array is a tuple)."""
    if f.type == "array":
        assert f.items is not None
        return f"tuple[{PYTHON[f.items]}, ...]"
    return PYTHON[f.type]


def commands_module() -> str:
    """The text of engine/contracts/commands.py for the registered commands."""
    names = sorted(REGISTRY)
    lines = HEADER.splitlines()
    for name in names:
        lines += _command(REGISTRY[name][0])
    lines += ["", "", "#: any command of the vocabulary", "AnyCommand = ("]
    lines += [f"    {'| ' if i else ''}{_class_name(n)}Command" for i, n in enumerate(names)]
    lines += [")", "", "#: each command's name → its TypedDict", "COMMANDS: dict[str, Any] = {"]
    lines += [f'    "{n}": {_class_name(n)}Command,' for n in names]
    lines += ["}", ""]
    return "\n".join(lines)


def main() -> int:
    import engine  # noqa: F401  (registers every command)

    MODULE.write_text(commands_module(), "utf-8")
    print(f"wrote {MODULE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
