"""doctor's venue bridge check (companion/mqtt/health.py) against a real table broker bridged
to a real venue."""

from __future__ import annotations

from pathlib import Path

from companion.mqtt.health import venue_bridge
from companion.ops import venue as V
from tests.harness import wait_until
from tests.harness.broker import bridge_config
from tests.harness.venue import Rig


def test_the_bridge_check_says_up_then_down_with_the_last_notification(tmp_path: Path) -> None:
    rig = Rig(tmp_path, 2, keepalive=5).start()
    try:
        conf = tmp_path / "tables" / "t001" / V.BRIDGE_FILE
        cfg = bridge_config(rig.tables["t001"].port)
        wait_until(lambda: next(venue_bridge(conf, cfg)).ok, "the bridge up", timeout=15)
        up = next(venue_bridge(conf, cfg))
        assert "up to 127.0.0.1" in up.detail and "rhuna/uplink/t001: 1" in up.detail
        rig.broker.stop()
        wait_until(lambda: not next(venue_bridge(conf, cfg)).ok, "the bridge down", timeout=15)
        down = next(venue_bridge(conf, cfg))
        assert "says 0" in down.detail and "queues" in down.fix
    finally:
        rig.stop()
    assert list(venue_bridge(tmp_path / "none.conf", cfg)) == []  # not at a venue: no line
