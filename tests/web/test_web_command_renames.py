"""A command field renamed in the vocabulary's schema breaks `tsc` at every gm card that sends it
(issue 40 item 1): the cards build their commands through the constructors web/gen-types.mjs
generates from docs/commands.schema.json (web/src/generated/commands.ts), never as untyped
records. One copy of web/ and docs/, every rename at once, one type check."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

from tests.harness import ROOT, missing_real_part

WEB = ROOT / "web"
#: (command, field) → the files tsc must name (the cards, and the page, that send it)
RENAMES = {
    ("draw", "token"): {"src/gm/performance.ts"},
    ("redraw", "replace"): {"src/gm/performance.ts"},
    ("declare", "shade"): {"src/gm/performance.ts"},
    ("begin_performance", "weight"): {"src/gm/performance.ts"},
    ("note", "audience"): {"src/gm/note.ts"},
    ("act", "target"): {"src/gm/combat.ts"},
    ("act", "attack_dice"): {"src/gm/combat.ts"},
    ("start_combat", "initiative"): {"src/gm/combat.ts"},
    ("add_combatant", "join"): {"src/gm/combat.ts"},
    ("begin_rest", "kind"): {"src/gm/time.ts"},
    ("draw_weather", "bag"): {"src/gm/time.ts"},
    ("choose_full_rest", "choice"): {"src/gm/time.ts"},
    ("answer_interruption", "interrupts"): {"src/gm/time.ts"},
    ("acknowledge_prompt", "prompt"): {"src/gm/time.ts"},
}
_ERROR = re.compile(r"^(src/[\w/.-]+\.ts)\((\d+),\d+\): error TS\d+: ", re.M)


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
    shutil.copytree(
        ROOT / "docs", tmp_path / "docs", ignore=shutil.ignore_patterns("*.md", "*.png")
    )
    return copy


def _typecheck(copy) -> subprocess.CompletedProcess[str]:
    env = {"PATH": f"{copy / 'node_modules' / '.bin'}:/usr/bin:/bin", "RHUNA_DOCS": "../docs"}
    subprocess.run(["node", "gen-types.mjs"], cwd=copy, env=env, check=True, capture_output=True)
    return subprocess.run(
        ["tsc", "--noEmit"], cwd=copy, env=env, capture_output=True, text=True, timeout=300
    )


def _errors(output: str) -> list[tuple[str, str]]:
    """(file, the error with its indented continuation lines) of each tsc error."""
    starts = list(_ERROR.finditer(output))
    ends = [m.start() for m in starts[1:]] + [len(output)]
    return [(m.group(1), output[m.start() : end]) for m, end in zip(starts, ends, strict=True)]


def test_a_renamed_command_field_fails_tsc_at_every_card_that_sends_it(tmp_path):
    copy = _copy(tmp_path)
    plain = _typecheck(copy)
    assert plain.returncode == 0, "the unmodified copy must type-check:\n" + plain.stdout
    path = tmp_path / "docs" / "commands.schema.json"
    schema = json.loads(path.read_text("utf-8"))
    variants = {v["title"]: v for v in schema["oneOf"]}
    for name, field in RENAMES:
        v = variants[name]
        v["properties"][f"{field}_renamed"] = v["properties"].pop(field)
        v["required"] = [f"{field}_renamed" if k == field else k for k in v["required"]]
    path.write_text(json.dumps(schema), "utf-8")
    result = _typecheck(copy)
    assert result.returncode != 0
    errors = _errors(result.stdout)
    for (name, field), files in RENAMES.items():
        named = {f for f, text in errors if re.search(rf"['\"]{field}['\"]", text)}
        assert named == files, (name, field, sorted(named), result.stdout)
