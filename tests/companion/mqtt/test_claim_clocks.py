"""Issue 45 item 6: the claim on a table id is no clock race. An online holder keeps its table
whatever the two clocks say; a newcomer with the same id stands by and says so; and its
clean stop leaves the holder's ``…/status`` alone. Two bridges with their own table loops on
one real Mosquitto, each with a clock of its own (the ``started`` of its claim). Before: the
newcomer whose clock was an hour behind took the table from the holder."""

from __future__ import annotations

import logging
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from companion.mqtt import MqttBridge
from tests.harness import BEGIN, wait_until
from tests.harness.broker import WAIT, RunningLoop, Watcher, bridge_config, example_loop

R = "rhuna/example"
FAVOR = {"cmd": "adjust_hero", "hero": "aria", "favor": 1}
HOUR, DAY = timedelta(hours=1), timedelta(days=1)


def _skewed(bridge: MqttBridge, by: timedelta) -> None:
    """The bridge's clock ``by`` off (its claim's ``started`` and its ``…/info``'s ``now``)."""

    def clock() -> str:
        return (datetime.now(UTC) + by).isoformat(timespec="milliseconds")

    bridge.identity.clock = clock
    bridge.identity.started_at = clock()


@pytest.mark.error_log  # the one standing by says why at ERROR
@pytest.mark.parametrize(
    ("holder_by", "newcomer_by"),
    [(timedelta(0), -HOUR), (DAY, timedelta(0)), (DAY, -HOUR)],
    ids=["newcomer-an-hour-behind", "holder-a-day-ahead", "both"],
)
def test_an_online_holder_keeps_its_table_whatever_the_clocks(
    broker, caplog, holder_by, newcomer_by
):
    caplog.set_level(logging.WARNING, "rhuna.mqtt")
    marker = f"rhuna-test/marker/{uuid.uuid4().hex}"
    watcher = Watcher(broker.port, [f"{R}/status", f"{R}/reply", f"{R}/error", marker])
    loops = [RunningLoop(example_loop()), RunningLoop(example_loop())]
    holder, newcomer = (MqttBridge(bridge_config(broker.port)) for _ in loops)
    _skewed(holder, holder_by)
    _skewed(newcomer, newcomer_by)
    try:
        holder.start(loops[0].loop)
        assert holder.wait_ready(WAIT)
        watcher.send(f"{R}/command", {**BEGIN, "transaction": "before"})
        assert watcher.reply(f"{R}/reply", "before")["status"] == "ok"  # mid-Performance

        newcomer.start(loops[1].loop)
        wait_until(lambda: newcomer.duplicate is not None, "the newcomer stands by")
        assert not newcomer.identity.acting and holder.identity.acting
        assert newcomer.duplicate["instance"] == holder.instance
        # it says so: on …/error (the holder named), and in its log
        said = watcher.wait(
            lambda ms: [m.json() for m in ms if m.topic == f"{R}/error"], "the standby's word"
        )[0]
        assert said["code"] == "duplicate" and said["other"]["instance"] == holder.instance
        assert "stands by" in said["message"]
        assert any("this one stands by" in r.getMessage() for r in caplog.records)

        # the next command goes to the holder's table, not the newcomer's
        watcher.send(f"{R}/command", {**FAVOR, "transaction": "after"})
        assert watcher.reply(f"{R}/reply", "after")["status"] == "ok"
        wait_until(
            lambda: loops[0].loop.state.heroes["aria"].favor is not None, "the holder's favor"
        )
        assert loops[1].loop.state.performance is None
        assert [r["transaction"] for r in watcher.json_on(f"{R}/reply")] == ["before", "after"]

        # the standby's clean stop: nothing on the holder's …/status (its offline would reach
        # the watcher before the marker sent after the stop)
        newcomer.stop()
        watcher.send(marker, "after the standby's stop")
        watcher.first(marker)
        assert set(m.payload for m in watcher.on(f"{R}/status")) == {b"online"}
        assert holder.identity.acting and holder.stats.status_restored == 0
    finally:
        for b in (holder, newcomer):
            b.stop()
        for r in loops:
            r.close()
        watcher.close()


@pytest.mark.error_log  # those standing by say why at ERROR
def test_two_standbys_take_over_as_one_when_the_holder_leaves(broker):
    """The holder stops cleanly; both services that stood by for it take over, both claim, and
    the claim the broker took first holds: one acts, the other stands by for it (the clocks,
    one an hour behind and one a day ahead, decide nothing)."""
    loops = [RunningLoop(example_loop()) for _ in range(3)]
    holder, *standbys = (MqttBridge(bridge_config(broker.port)) for _ in loops)
    _skewed(standbys[0], -HOUR)
    _skewed(standbys[1], DAY)
    try:
        holder.start(loops[0].loop)
        assert holder.wait_ready(WAIT)
        for bridge, running in zip(standbys, loops[1:], strict=True):
            bridge.start(running.loop)
            wait_until(lambda b=bridge: b.duplicate is not None, "a newcomer stands by")
        assert holder.identity.acting and not any(b.identity.acting for b in standbys)
        holder.stop()

        def one_acts() -> bool:  # decided: one that took over has not yet read the claims
            acting = [b for b in standbys if b.identity.acting and not b.identity.undecided()]
            others = [b for b in standbys if not b.identity.acting]
            return (
                len(acting) == 1
                and len(others) == 1
                and others[0].duplicate is not None
                and others[0].duplicate["instance"] == acting[0].instance
            )

        wait_until(one_acts, lambda: f"acting: {[b.identity.acting for b in standbys]}")
        (acting,) = [b for b in standbys if b.identity.acting]
        watcher = Watcher(broker.port, [f"{R}/reply"])
        try:
            watcher.send(f"{R}/command", {**BEGIN, "transaction": "after"})
            assert watcher.reply(f"{R}/reply", "after")["status"] == "ok"
            running = loops[1 + standbys.index(acting)]
            wait_until(lambda: running.loop.state.performance is not None, "the new holder's")
            other = loops[1 + (1 - standbys.index(acting))]
            assert other.loop.state.performance is None
            assert [r["transaction"] for r in watcher.json_on(f"{R}/reply")] == ["after"]
        finally:
            watcher.close()
    finally:
        for b in (holder, *standbys):
            b.stop()
        for r in loops:
            r.close()
