"""A field renamed in the service's schemas breaks `tsc` in every page that reads it, gm included
(issue 28, item 3): one copy of web/ and docs/, several renames at once, one type check, and
each error placed in the pages whose bundle holds its line (esbuild's source maps)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

from tests.harness import ROOT, missing_real_part

WEB = ROOT / "web"
#: (schema file, $defs type, field) → the pages that read it
RENAMES = {
    ("state", "RosterEntry", "in_fight"): {"gm"},
    ("state", "RestView", "full_rest_at"): {"gm", "overlay", "table", "director"},
    ("state", "ContributionView", "total"): {"gm", "overlay", "table", "tables", "director"},
    ("history", "Recap", "href"): {"table"},
}
_ERROR = re.compile(r"^(src/[\w/.-]+\.ts)\((\d+),\d+\): error TS\d+: (.*)$", re.M)
_B64 = {
    c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
}
_BUNDLE = """
import { build } from "esbuild";
import { readdirSync } from "node:fs";
const pages = readdirSync("src/pages").filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3));
const out = await build({
  entryPoints: Object.fromEntries(pages.map((p) => [p, `src/pages/${p}.ts`])),
  bundle: true, format: "iife", platform: "browser", outdir: "out", write: false,
  sourcemap: "external", logLevel: "error",
});
const maps = {};
for (const f of out.outputFiles) if (f.path.endsWith(".js.map")) {
  maps[f.path.split("/").pop().slice(0, -7)] = JSON.parse(f.text);
}
console.log(JSON.stringify(maps));
"""


def _vlq(segment: str) -> list[int]:
    values, shift, value = [], 0, 0
    for ch in segment:
        digit = _B64[ch]
        value += (digit & 31) << shift
        if digit & 32:
            shift += 5
            continue
        values.append(-(value >> 1) if value & 1 else value >> 1)
        shift = value = 0
    return values


def _lines(source_map: dict) -> set[tuple[str, int]]:
    """Every (source file, 1-based line) that a bundle's source map says it holds."""
    held: set[tuple[str, int]] = set()
    src = line = 0
    for group in source_map["mappings"].split(";"):
        for seg in filter(None, group.split(",")):
            v = _vlq(seg)
            if len(v) >= 4:
                src += v[1]
                line += v[2]
                name = re.sub(r"^(\.\./)+", "", source_map["sources"][src])
                held.add((name, line + 1))
    return held


def _copy(tmp_path):
    if not (WEB / "node_modules" / ".bin" / "tsc").exists() or shutil.which("node") is None:
        missing_real_part("web/node_modules (make web) and node")
    copy = tmp_path / "web"
    copy.mkdir()
    for name in ("src", "gen-types.mjs", "tsconfig.json", "package.json"):
        if (WEB / name).is_dir():
            shutil.copytree(WEB / name, copy / name, ignore=shutil.ignore_patterns("generated"))
        else:
            shutil.copy(WEB / name, copy / name)
    (copy / "node_modules").symlink_to(WEB / "node_modules")
    shutil.copytree(ROOT / "docs", tmp_path / "docs", ignore=shutil.ignore_patterns("*.md"))
    return copy


def _typecheck(copy) -> subprocess.CompletedProcess[str]:
    env = {"PATH": f"{copy / 'node_modules' / '.bin'}:/usr/bin:/bin", "RHUNA_DOCS": "../docs"}
    subprocess.run(["node", "gen-types.mjs"], cwd=copy, env=env, check=True, capture_output=True)
    return subprocess.run(
        ["tsc", "--noEmit"], cwd=copy, env=env, capture_output=True, text=True, timeout=120
    )


def test_renamed_fields_fail_tsc_in_every_page_that_reads_them(tmp_path):
    copy = _copy(tmp_path)
    assert _typecheck(copy).returncode == 0, "the unmodified copy must type-check"
    for file, type_name, field in RENAMES:
        path = tmp_path / "docs" / f"{file}.schema.json"
        schema = json.loads(path.read_text())
        d = schema["$defs"][type_name]
        d["properties"][f"{field}_renamed"] = d["properties"].pop(field)
        d["required"] = [f"{field}_renamed" if k == field else k for k in d["required"]]
        path.write_text(json.dumps(schema))
    result = _typecheck(copy)
    assert result.returncode != 0
    maps = json.loads(
        subprocess.run(
            ["node", "--input-type=module", "-e", _BUNDLE],
            cwd=copy,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    held = {page: _lines(m) for page, m in maps.items()}
    assert set(held) == {"gm", "overlay", "table", "tables", "director"}
    for (_, type_name, field), readers in RENAMES.items():
        where = {
            (f, int(n))
            for f, n, msg in _ERROR.findall(result.stdout)
            if f"Property '{field}' does not exist on type '{type_name}" in msg
        }
        assert where, f"no tsc error for {type_name}.{field}:\n{result.stdout}"
        failed = {page for page, lines in held.items() if where & lines}
        assert failed == readers, (type_name, field, sorted(where))
