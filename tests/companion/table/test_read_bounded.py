"""Every file the config names is read with a size limit (issue 45 item 8): ``rules_file =
"/dev/zero"`` was read forever (5.8 GB in 6 s, check-config included); now one clear error."""

from __future__ import annotations

import subprocess
import sys

from tests.harness import ROOT
from tests.harness.service import write_config


def test_a_rules_file_of_dev_zero_is_one_clear_error(tmp_path):
    config = write_config(tmp_path)
    table = tmp_path / "table.toml"
    table.write_text(
        table.read_text().replace("[table]\n", '[table]\nrules_file = "/dev/zero"\n', 1)
    )
    assert "/dev/zero" in table.read_text()
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", "check-config", str(config)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "/dev/zero: more than 16 MiB" in done.stderr and "Traceback" not in done.stderr
