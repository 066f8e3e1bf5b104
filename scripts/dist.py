"""``make dist``: the release archive a Pi installs from, with the web pages built (issue 44).

``dist/rhuna-table-VERSION.tar.gz`` holds the checkout's files (``git ls-files``: the tracked
ones, and new ones not ignored) and ``web/dist`` as ``make web`` built it, under one folder
``rhuna-table/``. On the Pi, ``tar xf`` it and run ``sudo rhuna-table/systemd/install.sh``:
the pages travel with it, so the Pi needs neither Node nor npm (docs/hardware.md).

    python -m scripts.dist [--out dist]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP = "rhuna-table"


def files(root: Path = ROOT) -> list[str]:
    """The checkout's files and the built pages, relative to ``root``, sorted."""
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout.decode()
    names = {n for n in listed.split("\0") if n and (root / n).is_file()}
    names |= {str(p.relative_to(root)) for p in (root / "web" / "dist").rglob("*") if p.is_file()}
    return sorted(names)


def build(out: Path, root: Path = ROOT) -> Path:
    if not (root / "web" / "dist" / "BUILT").exists():
        raise SystemExit("make dist: web/dist/BUILT is missing — run make web first")
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    out.mkdir(parents=True, exist_ok=True)
    archive = out / f"{TOP}-{version}.tar.gz"
    tmp = archive.with_name(archive.name + ".tmp")

    def normal(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    with tarfile.open(tmp, "w:gz") as tar:
        for name in files(root):
            tar.add(root / name, arcname=f"{TOP}/{name}", recursive=False, filter=normal)
    tmp.replace(archive)
    return archive


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    args = parser.parse_args(argv)
    archive = build(args.out)
    size = archive.stat().st_size / 1e6
    print(
        f"{archive.relative_to(ROOT) if archive.is_relative_to(ROOT) else archive}: {size:.1f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
