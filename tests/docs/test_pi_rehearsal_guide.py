"""``make pi-rehearsal``'s reader of docs/hardware.md finds every command of the guide's Pi blocks
(issue 44, item 4): the short, Python-only form of the rehearsal that ``make test`` keeps.

The rehearsal itself (scripts/pi_rehearsal.py) runs those commands in an arm64 Debian system
under qemu-user; it is long and needs root, so it is its own target. Here its parser is checked
against the docs tests' own block reader (tests/harness/doc_commands.py): the same commands, in
the same order, each in the folder its block says, and the path's landmarks all there.
"""

from __future__ import annotations

from scripts.pi_rehearsal import GUIDE, guide_steps
from tests.harness.doc_commands import blocks


def expected() -> list[tuple[int, str]]:
    out = []
    for block in blocks(GUIDE.read_text("utf-8"), "docs/hardware.md"):
        if not block.pi:
            continue
        for n, raw in enumerate(block.lines[1:], 1):
            text = raw.strip()
            if text and not text.startswith("#"):
                out.append((block.line + n, text.split("  #", 1)[0].strip()))
    return out


def test_the_rehearsal_finds_every_command_of_the_pi_blocks_in_order():
    steps = guide_steps(GUIDE.read_text("utf-8"))
    assert [(s.line, s.text) for s in steps] == expected()


def test_the_pi_path_is_all_there_from_install_to_the_first_enrolment():
    texts = [s.text for s in guide_steps(GUIDE.read_text("utf-8"))]
    landmarks = [
        "tar xf rhuna-table-",
        "sudo systemd/install.sh",
        "mpy-cross -o build/hubmain.mpy",
        "mpremote connect $HUB cp build/hubmain.mpy",
        "sudo rhuna-table check-config /etc/rhuna-table/rhuna.toml",
        "sudo rhuna-table doctor /etc/rhuna-table/rhuna.toml",
        "sudo -u rhuna rhuna-table enroll --config /etc/rhuna-table/rhuna.toml",
        "sudo systemctl status rhuna-table",
    ]
    at = [next((i for i, t in enumerate(texts) if t.startswith(m)), -1) for m in landmarks]
    assert -1 not in at, dict(zip(landmarks, at, strict=True))
    assert at == sorted(at), "the path's steps out of order"
    # no command of the checkout's own venv on the Pi's path (issue 44, D2)
    assert not [t for t in texts if ".venv/" in t]


def test_a_block_says_its_folder_and_cd_carries():
    text = "```sh\n# on the Pi, in ~/x\nls\ncd /tmp\npwd  # here\n```\n```sh\n# on a laptop\nmake\n```\n"
    steps = guide_steps(text)
    assert [(s.cwd, s.text) for s in steps] == [("~/x", "ls"), ("~/x", "cd /tmp"), ("/tmp", "pwd")]
