"""``rhuna-table doctor``: check the Pi, the wiring and the accounts a config needs (docs/hardware.md).

One ✓/✗ line a check, each failure with its fix; the exit status is 1 when
anything failed; ``--json`` prints the same as JSON. Stop the service first:
the readers' ports are opened exclusively.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from companion.cli.run import DEFAULT_CONFIG


def register(sub: Any) -> None:
    p = sub.add_parser("doctor", help="check the Pi, its wiring and accounts for a config")
    p.add_argument(
        "config", nargs="?", default=DEFAULT_CONFIG, help=f"config file (default {DEFAULT_CONFIG})"
    )
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.add_argument("--user", default="rhuna", help="the service user (default rhuna)")
    p.add_argument(
        "--root", default="/", help=argparse.SUPPRESS
    )  # where /proc, /sys, /boot and /etc are (the tests' fake trees)
    p.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for each device")
    p.set_defaults(func=_doctor)


def _doctor(args: argparse.Namespace) -> int:
    from companion.ops.doctor import Doctor, report
    from settings.machine import Machine

    checks = Doctor(
        Path(args.config), Machine(Path(args.root)), user=args.user, timeout=args.timeout
    ).run()
    print(report(checks, as_json=args.json))
    return 0 if all(c.ok for c in checks) else 1
