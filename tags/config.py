"""The ``[registry]`` section of the service config: the tag registry's file, or made-up tags.

>>> from settings.checker import Problems
>>> read_registry({"file": "tags.json"}, Problems("rhuna.toml"), Path("/var/lib/rhuna-table"))
(PosixPath('/var/lib/rhuna-table/tags.json'), False)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from settings.checker import Key, Problems, Section

REGISTRY = Section(
    "registry",
    {
        "file": Key(
            "string",
            "the tag registry rhuna-table enroll writes",
            "registry.json",
            fix='write file = "registry.json" (in the state directory unless a full path)',
        ),
        "synthetic": Key("boolean", "made-up tags instead of enrolled ones", False),
    },
)


def read_registry(value: Any, problems: Problems, state_dir: Path) -> tuple[Path | None, bool]:
    """Check ``[registry]``: (the registry file, or None when ``synthetic = true``; synthetic)."""
    r = REGISTRY.read(value, problems)
    if r["synthetic"] is True:
        if isinstance(value, dict) and "file" in value:
            problems.add(
                "registry",
                "both file and synthetic = true",
                "enrolled tags (file) or made-up ones (synthetic), not both",
            )
        return None, True
    path = Path(str(r["file"] or "registry.json")).expanduser()
    return (path if path.is_absolute() else state_dir / path), False
