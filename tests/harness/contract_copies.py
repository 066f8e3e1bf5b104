"""Copies of the product to change a contract in and type-check (issue 40 item 2's rename tests):
a field renamed in a TypedDict, a token or prompt kind added to engine/contracts/terms.py, the
web pages' sources beside a copy of docs/ for `tsc`."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.harness import ROOT, missing_real_part

#: every package the typecheck covers (the Makefile's typecheck line)
PACKAGES = ("settings", "engine", "firmware_bridge", "tags", "hardware", "display", "companion")
WEB = ROOT / "web"


def renamed(source: str, typed: str, field: str) -> str:
    """``source`` with ``field`` of class ``typed`` renamed ``<field>_renamed``."""
    start = source.index(f"class {typed}(")
    end = source.find("\nclass ", start + 1)
    body = source[start:end]
    new = re.sub(rf"^(\s+){field}:", rf"\1{field}_renamed:", body, count=1, flags=re.M)
    assert new != body, (typed, field)
    return source[:start] + new + source[end:]


def with_kind(source: str, kind: str) -> str:
    """``engine/contracts/terms.py`` with one more token kind."""
    new = source.replace('"temporary"\n]', f'"temporary", "{kind}"\n]', 1)
    assert new != source, "TokenKindName's closing line moved: update with_kind"
    return new


def with_prompt_kind(source: str, kind: str) -> str:
    """``engine/contracts/terms.py`` with one more prompt kind."""
    new = source.replace('"full_rest"]', f'"full_rest", "{kind}"]', 1)
    assert new != source, "PromptKindName's closing moved: update with_prompt_kind"
    return new


def copy_product(into: Path, packages: tuple[str, ...] = PACKAGES) -> Path:
    """The packages and pyproject.toml (mypy's settings) under ``into``."""
    for package in packages:
        shutil.copytree(ROOT / package, into / package, ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copy(ROOT / "pyproject.toml", into / "pyproject.toml")
    return into


def mypy_cache(into: Path) -> Path:
    """A mypy cache directory for a copy under ``into``, started from the checkout's own
    ``.mypy_cache`` when there is one (``make test`` runs ``make typecheck`` first).

    mypy keys its cache by the module's relative path and checks each entry against the
    file's size, mtime and hash, so the copy's unchanged modules and the standard library are
    read from it, and only the changed contract and what depends on it are checked again:
    the same errors as a cold run, in about a second instead of 20 (a cold run of the whole
    product is about 16 s of CPU). Without a cache, a cold run."""
    cache = into / ".mypy"
    if (ROOT / ".mypy_cache").is_dir():
        shutil.copytree(ROOT / ".mypy_cache", cache, dirs_exist_ok=True)
    return cache


def copy_web(into: Path) -> Path:
    """web/'s sources (not its generated types) as ``into/web``, docs/ as ``into/docs``."""
    if not (WEB / "node_modules" / ".bin" / "tsc").exists() or shutil.which("node") is None:
        missing_real_part("web/node_modules (make web) and node")
    copy = into / "web"
    copy.mkdir(parents=True)
    for name in ("src", "gen-types.mjs", "tsconfig.json", "package.json"):
        if (WEB / name).is_dir():
            shutil.copytree(WEB / name, copy / name, ignore=shutil.ignore_patterns("generated"))
        else:
            shutil.copy(WEB / name, copy / name)
    (copy / "node_modules").symlink_to(WEB / "node_modules")
    shutil.copytree(ROOT / "docs", into / "docs", ignore=shutil.ignore_patterns("*.md"))
    return copy


def typecheck_web(copy: Path) -> subprocess.CompletedProcess[str]:
    """The copy's types generated from its docs/, then `tsc --noEmit`."""
    env = {"PATH": f"{copy / 'node_modules' / '.bin'}:/usr/bin:/bin", "RHUNA_DOCS": "../docs"}
    subprocess.run(["node", "gen-types.mjs"], cwd=copy, env=env, check=True, capture_output=True)
    return subprocess.run(
        ["tsc", "--noEmit"], cwd=copy, env=env, capture_output=True, text=True, timeout=120
    )
