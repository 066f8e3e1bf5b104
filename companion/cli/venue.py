"""``rhuna-table venue``: the venue broker's files and each table's bridge (docs/convention.md).

    rhuna-table venue venue.toml --out /tmp/venue     # write them; nothing is installed
    rhuna-table venue venue.toml --check              # check the venue file only

It writes venue/mosquitto.conf, venue/passwd and venue/acl for the venue's Mosquitto, and
tables/<id>/rhuna-venue.conf for each table's Pi (/etc/mosquitto/conf.d; it holds that
table's bridge password). Every problem in the venue file is listed at once.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from companion.cli import plain


def register(sub: Any) -> None:
    p = sub.add_parser(
        "venue",
        help="write a convention venue broker's config and each table's bridge file",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("venue_file", metavar="VENUE_TOML", help="the venue file listing the tables")
    p.add_argument("--out", default="venue-out", help="where to write (default ./venue-out)")
    p.add_argument(
        "--venue-dir",
        help="where the venue's passwd and acl will live on the venue box "
        "(their paths in its mosquitto.conf; default OUT/venue)",
    )
    p.add_argument("--check", action="store_true", help="check the venue file, write nothing")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.ops import venue as V

    venue = V.load(Path(args.venue_file))
    if args.check:
        print(f"{args.venue_file}: {len(venue.tables)} tables, no problems")
        return 0
    out = Path(args.out)
    written = V.write(venue, out, venue_dir=Path(args.venue_dir) if args.venue_dir else None)
    print(f"wrote {len(written)} files in {out}:")
    print(f"  venue broker: mosquitto -c {out / 'venue' / 'mosquitto.conf'}")
    print(f"  per table: {out}/tables/<id>/{V.BRIDGE_FILE} → that Pi's /etc/mosquitto/conf.d/")
    cmds = [t.id for t in venue.tables if t.commands_from_venue]
    print(f"  commands from the venue: {', '.join(cmds) if cmds else 'no table (the default)'}")
    return 0
