"""``rhuna-table schema``: print or write the command vocabulary (JSON Schema and Markdown)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import engine  # noqa: F401  (registers every command)
from engine.docs import commands_markdown, schema_json


def register(sub: Any) -> None:
    p = sub.add_parser("schema", help="print the command vocabulary's JSON Schema")
    p.add_argument("--markdown", action="store_true", help="print docs/commands.md instead")
    p.add_argument("--write", metavar="DIR", help="write commands.schema.json and commands.md")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.write:
        out = Path(args.write)
        out.mkdir(parents=True, exist_ok=True)
        (out / "commands.schema.json").write_text(schema_json(), "utf-8")
        (out / "commands.md").write_text(commands_markdown(), "utf-8")
        print(f"wrote {out / 'commands.schema.json'} and {out / 'commands.md'}")
        return 0
    sys.stdout.write(commands_markdown() if args.markdown else schema_json())
    return 0
