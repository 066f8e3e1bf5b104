"""The ``[display]`` section of the service config: which driver, which panel, which inks.

Declared with :mod:`settings.checker`, so its errors have the one shape of every
section (file, key, fix; "did you mean" for an unknown key, listing only this
section's keys — which depend on the driver).

>>> from settings.checker import Problems
>>> p = Problems("rhuna.toml")
>>> read_display({"driver": "png", "colur": "bwr"}, p, Path("/var/lib/rhuna-table")).colour
'bw'
>>> print(p.errors[0])
rhuna.toml: display.colur: unknown key — did you mean colour? [display] takes: driver, panel, colour, full_every, out_dir, keep, full_refresh_s, partial_refresh_s
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from display.drivers import DRIVERS
from display.panels import COLOURS, panel_spec
from settings.checker import Key, Problems, Section, show
from settings.errors import ConfigError

DISPLAY_DRIVERS = (*DRIVERS, "none")
PANEL_FIX = 'use "2.13", "2.9", "4.2", "7.5" or "WxH"'

_SECONDS = {
    "full_refresh_s": Key("number", "seconds a full refresh takes", minimum=0),
    "partial_refresh_s": Key("number", "seconds a partial refresh takes", minimum=0, off=True),
}
#: keys each display driver takes beyond driver, panel, colour, full_every
DRIVER_KEYS: dict[str, dict[str, Key]] = {
    "png": {
        "out_dir": Key("string", "where the PNG frames go", "panel"),
        "keep": Key("integer", "how many frames to keep", minimum=0),
        **_SECONDS,
    },
    "inky": {"full_refresh_s": _SECONDS["full_refresh_s"]},
    "waveshare": {
        "model": Key(
            "string",
            "the Waveshare module",
            required=True,
            fix='name the Waveshare model, e.g. model = "epd2in13_V4" (docs/display.md)',
        ),
        **_SECONDS,
    },
    "none": {},
}
_COMMON = {
    "driver": Key("string", "the panel driver", "png", enum=DISPLAY_DRIVERS),
    "panel": Key("any", "the panel size", "2.13", fix=PANEL_FIX),
    "colour": Key("string", "the panel's inks", "bw", enum=COLOURS),
    "full_every": Key(
        "integer",
        "partial refreshes between full ones",
        5,
        minimum=0,
        fix="e.g. 5 (0: always a full refresh)",
    ),
}


@dataclass(frozen=True, slots=True)
class DisplayConfig:
    """The panel: driver, size, inks, and the driver's own options."""

    driver: str = "png"
    panel: str = "2.13"
    colour: str = "bw"
    #: a full refresh after this many partial ones (against ghosting)
    full_every: int = 5
    #: driver options (png: out_dir, keep …; waveshare: model …)
    options: Mapping[str, Any] = field(default_factory=dict)


def section(driver: str) -> Section:
    """The ``[display]`` keys for ``driver`` (an unknown driver: the common keys only)."""
    return Section("display", {**_COMMON, **DRIVER_KEYS.get(driver, {})})


def read_display(value: Any, problems: Problems, state_dir: Path) -> DisplayConfig:
    """Check ``[display]``; problems go to ``problems`` (then the defaults stand in)."""
    driver = value.get("driver", "png") if isinstance(value, dict) else "png"
    if driver not in DISPLAY_DRIVERS:
        problems.add(
            "display.driver",
            f"{show(driver)} is not a display driver",
            f"use one of: {', '.join(DISPLAY_DRIVERS)}",
        )
        return DisplayConfig()
    d = section(driver).read(value, problems)
    panel = d["panel"]
    if isinstance(panel, int | float) and not isinstance(panel, bool):
        panel = str(panel)
    if not isinstance(panel, str):
        problems.add("display.panel", f"{show(panel)} is not a panel", PANEL_FIX)
        panel = "2.13"
    try:
        panel_spec(panel)
    except ConfigError as e:
        problem, _, fix = str(e).partition(" — ")
        problems.add("display.panel", problem, fix or PANEL_FIX)
        panel = "2.13"
    options = {k: d[k] for k in DRIVER_KEYS[driver] if k in d and (k in value or k == "out_dir")}
    if driver == "png":
        out = Path(str(options.get("out_dir") or "panel")).expanduser()
        options["out_dir"] = out if out.is_absolute() else state_dir / out
    if driver == "waveshare" and not isinstance(options.get("model"), str):
        options.pop("model", None)
    return DisplayConfig(str(driver), panel, str(d["colour"]), int(d["full_every"]), options)


#: the library each hardware driver imports, and the extra that installs it
LIBRARIES = {"inky": ("inky", "inky"), "waveshare": ("epaper", "waveshare")}


def library_problem(driver: str) -> str | None:
    """Why ``driver``'s library cannot be imported here (for ``check-config``), or None.

    Only whether the module is installed is checked: nothing is opened.
    """
    import importlib.util

    if driver not in LIBRARIES:
        return None
    module, extra = LIBRARIES[driver]
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if found:
        return None
    return (
        f"the {driver} driver needs the {module} library, not installed here"
        f" — pip install 'rhuna-table[{extra}]' in the service's venv, or driver = \"png\""
    )
