"""Setup and docs as a newcomer meets them: the version, bounded options, examples that work as written.

The docs' shell blocks are run for real (bash, the checkout's .venv), with their
/tmp paths moved into the test's own folder.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from PIL import Image

from companion.cli import main
from tests.harness import ROOT


def _block(text: str, after: str) -> list[str]:
    """The command lines of the first ```sh block after the heading ``after``."""
    rest = text.split(after, 1)[1]
    block = rest.split("```sh\n", 1)[1].split("```", 1)[0]
    return [ln for ln in block.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def test_rhuna_table_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out == f"rhuna-table {version('rhuna-table')}\n"


@pytest.mark.parametrize("scale", ["0", "9", "1000000", "x"])
def test_preview_scale_is_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scale: str
) -> None:
    view = tmp_path / "view.json"
    view.write_text('{"table": "t", "heroes": {}, "performance": null}')
    with pytest.raises(SystemExit) as e:
        main(["preview", str(view), "--scale", scale, "-o", str(tmp_path / "o.png")])
    assert e.value.code == 2
    assert "1 to 8" in capsys.readouterr().err
    assert not (tmp_path / "o.png").exists()


def test_preview_scale_8_works(tmp_path: Path) -> None:
    view = tmp_path / "view.json"
    view.write_text('{"table": "t", "heroes": {}, "performance": null}')
    out = tmp_path / "o.png"
    assert main(["preview", str(view), "--panel", "2.13", "--scale", "8", "-o", str(out)]) == 0
    with Image.open(out) as image:
        assert image.size == (250 * 8, 122 * 8)


def test_the_display_docs_preview_pipeline_works_as_written(tmp_path: Path) -> None:
    lines = _block((ROOT / "docs" / "display.md").read_text("utf-8"), "## `rhuna-table preview`")
    assert any("|" in ln for ln in lines), "the pipeline is in the block"
    script = "\n".join(ln.replace("/tmp/", f"{tmp_path}/") for ln in lines)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    pictures = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pictures == ["rhuna-2.13.png", "rhuna-7.5.png", "rhuna-banner.png"]
    with Image.open(tmp_path / "rhuna-7.5.png") as image:
        assert image.size == (800, 480)
    with Image.open(tmp_path / "rhuna-banner.png") as image:
        assert image.size == (250 * 3, 122 * 3)


def _outputs(line: str) -> list[str]:
    words = shlex.split(line.split("#", 1)[0])
    out = []
    for i, w in enumerate(words[:-1]):
        if w in (">", "-o", "--output", "--out", "--write"):
            out.append(words[i + 1])
    return out


def test_readme_examples_write_outside_the_checkout_or_to_ignored_paths() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    lines = _block(readme, "## Using it without hardware")
    written = [o for ln in lines for o in _outputs(ln)]
    assert written, "the examples write something"
    for path in written:
        if path.startswith("/tmp/") or path == "docs":
            continue  # outside the checkout, or the generated docs the repository keeps
        ignored = subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0
        assert ignored, f"README example writes {path} inside the checkout, not ignored"
    inline = re.findall(r"`rhuna-table preview ([^`]+)`", readme)
    for example in inline:
        for path in _outputs(f"x {example}"):
            assert path.startswith("/tmp/"), example


def test_the_licence_is_an_spdx_string() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    assert project["project"]["license"] == "MIT"
    assert "setuptools>=77" in project["build-system"]["requires"]


def test_bootstrap_says_what_it_installs_before_pip_runs() -> None:
    text = (ROOT / "scripts" / "bootstrap").read_text("utf-8")
    say = text.index('echo "bootstrap: installing rhuna-table and its Python packages')
    pip = text.index('"$VENV/bin/pip" install -q -c constraints.txt')
    assert say < pip
    assert 'echo "bootstrap: $VENV is ready"' in text[pip:]
