"""The systemd unit and the install script.

The unit is read key by key (what a Pi admin relies on: notify + watchdog,
non-root in dialout/gpio/spi, a state directory, a read-only system), then
handed to ``systemd-analyze verify`` and ``security`` when this machine has
systemd (an optional tool, like shellcheck: without it the key test stands).
The install script runs with ``--dry-run`` only: it would create a system user.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness import ROOT

UNIT = ROOT / "systemd" / "rhuna-table.service"
INSTALL = ROOT / "systemd" / "install.sh"


def unit_keys(text: str) -> dict[str, dict[str, list[str]]]:
    """Sections → key → every value (systemd keys may repeat, e.g. DeviceAllow=)."""
    out: dict[str, dict[str, list[str]]] = {}
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if m := re.fullmatch(r"\[(\w+)\]", line):
            section = out.setdefault(m.group(1), {})
            continue
        assert section is not None and "=" in line, f"not a unit line: {raw!r}"
        key, _, value = line.partition("=")
        section.setdefault(key.strip(), []).append(value.strip())
    return out


@pytest.fixture(scope="module")
def unit():
    return unit_keys(UNIT.read_text())


def one(unit, section: str, key: str) -> str:
    values = unit[section].get(key)
    assert values is not None and len(values) == 1, f"{section}.{key}: {values}"
    return values[0]


def test_the_unit_is_a_notify_service_with_a_watchdog(unit):
    s = "Service"
    assert one(unit, s, "Type") == "notify" and one(unit, s, "NotifyAccess") == "main"
    assert int(one(unit, s, "WatchdogSec")) >= 10
    assert one(unit, s, "Restart") == "on-failure"
    assert one(unit, s, "ExecStart").endswith(
        "/bin/rhuna-table run --config /etc/rhuna-table/rhuna.toml"
    )
    assert one(unit, "Install", "WantedBy") == "multi-user.target"


def test_a_config_error_is_not_restarted_in_a_loop(unit, tmp_path, capsys):
    """RestartPreventExitStatus= is the status ``rhuna-table run`` gives a broken config."""
    from companion.cli import main

    code = main(["run", "--config", str(tmp_path / "missing.toml")])
    capsys.readouterr()
    assert one(unit, "Service", "RestartPreventExitStatus") == str(code) == "2"


def test_the_unit_runs_unprivileged_in_a_read_only_system(unit):
    s = "Service"
    assert one(unit, s, "User") == "rhuna"
    assert {"dialout", "gpio", "spi"} <= set(one(unit, s, "SupplementaryGroups").split())
    assert one(unit, s, "StateDirectory") == "rhuna-table"
    # the recaps, in the folder Mosquitto serves (install.sh makes it; tests/companion/record/test_record_served.py)
    assert one(unit, s, "ReadWritePaths") == "-/opt/rhuna-table/web/recaps"
    for key, value in {
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "NoNewPrivileges": "yes",
        "DevicePolicy": "closed",
        "CapabilityBoundingSet": "",
        "StandardOutput": "journal",
        "StandardError": "journal",
    }.items():
        assert one(unit, s, key) == value, key
    allowed = {v.split()[0] for v in unit[s]["DeviceAllow"]}
    assert {"char-ttyACM", "char-ttyUSB", "char-gpiochip", "char-spi"} <= allowed
    assert all(v.endswith(" rw") for v in unit[s]["DeviceAllow"])


def test_the_state_dir_the_unit_grants_is_the_configs_default(unit):
    """StateDirectory= sets $STATE_DIRECTORY, which [state] dir defaults to."""
    from companion.config import config_from_text

    directory = "/var/lib/" + one(unit, "Service", "StateDirectory")
    cfg = config_from_text("", env={"STATE_DIRECTORY": directory})
    assert cfg.state_dir == Path(directory) == Path(config_from_text("", env={}).state_dir)
    assert one(unit, "Service", "WorkingDirectory") == directory


def _installed_copy(tmp_path: Path) -> Path:
    """The unit with ExecStart pointing at this checkout's rhuna-table (verify checks it
    exists and is executable)."""
    exe = Path(sys.executable).parent / "rhuna-table"
    assert exe.exists()
    copy = tmp_path / "rhuna-table.service"
    copy.write_text(UNIT.read_text().replace("/opt/rhuna-table/venv/bin/rhuna-table", str(exe)))
    return copy


needs_systemd = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None and os.environ.get("CI") != "true",
    reason="systemd-analyze is not installed on this machine (in CI a missing one fails)",
)


@needs_systemd
def test_systemd_analyze_verify_accepts_the_unit(tmp_path):
    copy = _installed_copy(tmp_path)
    result = subprocess.run(
        ["systemd-analyze", "verify", copy.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "Unknown key" not in result.stderr and "Unknown section" not in result.stderr


@needs_systemd
def test_systemd_rates_the_unit_well_hardened(tmp_path):
    copy = _installed_copy(tmp_path)
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", "--no-pager", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if "--offline" in result.stderr:
        pytest.skip("this systemd-analyze has no --offline (systemd < 250)")
    m = re.search(r"Overall exposure level for \S+: ([\d.]+)", result.stdout)
    assert m is not None, result.stdout + result.stderr
    assert float(m.group(1)) < 3.0  # systemd's scale: 0 locked down … 10 exposed


def dry_run(tmp_path: Path, *args: str, **env: str) -> str:
    result = subprocess.run(
        ["sh", str(INSTALL), "--dry-run", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_install_script_is_posix_sh():
    assert subprocess.run(["sh", "-n", str(INSTALL)]).returncode == 0
    if shutil.which("shellcheck"):
        assert subprocess.run(["shellcheck", "-s", "sh", str(INSTALL)]).returncode == 0


def test_install_dry_run_says_every_step_and_changes_nothing(tmp_path):
    prefix, config = tmp_path / "opt", tmp_path / "etc"
    out = dry_run(
        tmp_path,
        "--prefix",
        str(prefix),
        "--extras",
        "inky",
        CONFIG_DIR=str(config),
        SERVICE_USER="rhuna-test-nobody",
    )
    assert "would run: useradd --system --user-group --home-dir /var/lib/rhuna-table" in out
    assert f"-m venv --system-site-packages {prefix}/venv" in out
    assert f"pip install --quiet --upgrade --constraint {ROOT}/constraints.txt {ROOT}[inky]" in out
    assert f"would write: {config}/rhuna.toml (examples/rhuna.toml with: " in out
    assert f"install -m 0644 {ROOT}/examples/table.toml {config}/table.toml" in out
    assert f"would run: cp -R {ROOT}/web/dist/. {prefix}/web/" in out  # the pages http_dir serves
    assert f"s|/opt/rhuna-table|{prefix}|g; s|/etc/rhuna-table|{config}|g" in out
    assert "would run: systemctl enable rhuna-table.service" in out
    assert "Done (dry run: nothing was changed)." in out
    assert not prefix.exists() and not config.exists()


def test_install_again_keeps_the_config_and_the_venv(tmp_path):
    """Idempotent: an existing venv is reused, an existing config is never overwritten."""
    prefix, config = tmp_path / "opt", tmp_path / "etc"
    (prefix / "venv" / "bin").mkdir(parents=True)
    (prefix / "venv" / "bin" / "python").symlink_to(sys.executable)
    config.mkdir()
    (config / "rhuna.toml").write_text("# mine\n")
    (config / "table.toml").write_text("# mine\n")
    out = dry_run(
        tmp_path, "--prefix", str(prefix), CONFIG_DIR=str(config), SERVICE_USER="rhuna-test-nobody"
    )
    assert "-m venv" not in out
    copies = [line for line in out.splitlines() if line.startswith("would run: install -m")]
    assert copies and not any(f" {config}/" in line for line in copies)
    assert f"would write: {config}/rhuna.toml" not in out


def test_install_updates_the_package_lists_once_before_the_first_apt_install(tmp_path):
    """Issue 44, D7: a fresh system's package lists are empty or old, and install.sh ran
    ``apt-get install`` without ``apt-get update``. A dpkg that knows no package makes every
    Debian package wanted; the dry run must update first, and only once."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool, body in (("dpkg", "exit 1"), ("apt-get", f"touch {tmp_path}/apt-ran; exit 1")):
        (bin_dir / tool).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / tool).chmod(0o755)
    out = dry_run(
        tmp_path,
        "--prefix",
        str(tmp_path / "opt"),
        "--extras",
        "inky",
        CONFIG_DIR=str(tmp_path / "etc"),
        SERVICE_USER="rhuna-test-nobody",
        PATH=f"{bin_dir}:{os.environ['PATH']}",
    )
    apt = [line for line in out.splitlines() if line.startswith("would run: apt-get")]
    assert apt[:1] == ["would run: apt-get update"], apt
    assert apt.count("would run: apt-get update") == 1, apt
    assert any(line.startswith("would run: apt-get install -y ") for line in apt[1:]), apt
    assert not (tmp_path / "apt-ran").exists()  # a dry run runs no apt-get


def test_install_brings_useradd_where_a_minimal_debian_has_none(tmp_path):
    """Issue 44 (trixie): a minimal Debian trixie system has no useradd, groupadd or usermod
    (Debian's passwd, which bookworm's minimal system had); install.sh makes its user with
    them, so it installs passwd first where dpkg says it is missing."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "dpkg").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "dpkg").chmod(0o755)
    out = dry_run(
        tmp_path,
        "--prefix",
        str(tmp_path / "opt"),
        CONFIG_DIR=str(tmp_path / "etc"),
        SERVICE_USER="rhuna-test-nobody",
        PATH=f"{bin_dir}:{os.environ['PATH']}",
    )
    lines = out.splitlines()
    passwd = lines.index("would run: apt-get install -y passwd")
    user = next(i for i, line in enumerate(lines) if line.startswith("would run: useradd "))
    assert passwd < user, lines[passwd : user + 1]
