"""``rhuna-table preview STATE.json --panel 2.13 --colour bwr -o out.png``: render any state to a file.

STATE.json is a table view (what MQTT publishes) or a full state (what
``rhuna-table replay … --json`` writes); ``-`` reads standard input. A banner can
be added to see how an error looks on the panel.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from settings.errors import ConfigError
from settings.textfile import decode, read_text


def register(sub: Any) -> None:
    from display.panels import COLOURS, PANELS
    from display.screens.banner import SEVERITIES

    p = sub.add_parser("preview", help="render a state or view JSON to a PNG as a panel shows it")
    p.add_argument("state", help="view JSON or full state JSON (- for standard input)")
    p.add_argument("--panel", default="2.13", help=f"{', '.join(PANELS)} or WxH (default 2.13)")
    p.add_argument("--colour", "--color", default="bw", choices=COLOURS, help="inks (default bw)")
    p.add_argument(
        "-o", "--output", default="preview.png", help="PNG to write (default preview.png)"
    )
    p.add_argument("--banner", help="also show this error banner")
    p.add_argument("--severity", default="error", choices=SEVERITIES, help="banner severity")
    p.add_argument(
        "--scale",
        type=_scale,
        default=1,
        help=f"enlarge the PNG 1 to {MAX_SCALE} times (pixels stay square)",
    )
    p.set_defaults(func=run)


#: a 7.5" frame at 8× is 6400×3840: larger is memory, not detail
MAX_SCALE = 8


def _scale(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text} is not a whole number (1 to {MAX_SCALE})"
        ) from None
    if not 1 <= n <= MAX_SCALE:
        raise argparse.ArgumentTypeError(f"{n} is not from 1 to {MAX_SCALE}")
    return n


def _stdin() -> str:
    """Standard input as UTF-8 text: bytes where there are bytes, so a binary pipe is one line."""
    buffer = getattr(sys.stdin, "buffer", None)
    return decode(buffer.read(), "standard input") if buffer is not None else sys.stdin.read()


def _read(path: str) -> Any:
    try:
        text = _stdin() if path == "-" else read_text(path)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read it ({e.strerror})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}:{e.lineno}: not JSON ({e.msg})") from None


def run(args: argparse.Namespace) -> int:
    from PIL import Image

    from display.render import render
    from display.screens.banner import Banner
    from display.source import load_view

    view = load_view(_read(args.state), args.state)
    banner = Banner(args.banner, args.severity) if args.banner else None
    try:
        image = render(view, args.panel, args.colour, banner=banner)
    except (AttributeError, TypeError, ValueError, KeyError, IndexError) as e:
        # a hand-edited view: a section of the wrong JSON type (a number where an object goes)
        raise ConfigError(
            f"{args.state}: this view does not have the shape table_view writes"
            f" ({type(e).__name__}: {e}); write a fresh one with"
            " `rhuna-table replay TABLE SESSION --json`"
        ) from None
    if args.scale > 1:
        image = image.resize(
            (image.width * args.scale, image.height * args.scale), Image.Resampling.NEAREST
        )
    out = Path(args.output)
    try:
        image.save(out, format="PNG")
    except OSError as e:
        raise ConfigError(f"{out}: cannot write it ({e.strerror})") from None
    print(f"wrote {out} ({image.width}×{image.height}, {args.colour})")
    return 0
