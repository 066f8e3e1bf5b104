"""Answers off the turn, in the running service: pending first, then the exact answer, on MQTT
and on the panel; a stuck publisher stops the watchdog; a restart on a journal that holds
the largest legal fight and an Intersect declare is READY and publishes at once (issue 27).

Real parts: a Mosquitto of the test's own, the service in process or as ``rhuna-table run``,
the answers' child process, systemd's notify socket. Nothing here times a turn: the
figures are benchmarks/pi_budget.py's.
"""

from __future__ import annotations

import os
import threading

import pytest

import engine
from companion.config import load_config
from companion.mqtt import MqttBridge
from companion.service import Service
from companion.table.sdnotify import Notifier
from companion.views.cache import VIEWS
from engine.view import table_view
from tests.harness import wait_until
from tests.harness.answers import (
    INTERSECT,
    cold,
    fight_commands,
    intersect_declare,
    largest_fight,
)
from tests.harness.broker import WAIT, Watcher
from tests.harness.sdnotify import Decisions, Systemd, no_ping_while_stuck
from tests.harness.service import ServiceProcess, write_config

R = "rhuna/example"
#: an answer's status once it is no longer pending
ANSWERED = ("ready", "too_big")


def _mqtt(port: int) -> str:
    return f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\n'


def _serve(service: Service) -> tuple[threading.Event, threading.Thread]:
    stop = threading.Event()
    thread = threading.Thread(target=service.run, args=(stop,), daemon=True)
    thread.start()
    return stop, thread


def test_intersect_odds_are_pending_then_exact_on_mqtt_and_the_panel(tmp_path, broker) -> None:
    """I-P10/P23: the declare is answered at once with the odds pending; the exact odds of
    that very state follow on …/odds and …/state, and the panel's view is replaced."""
    service = Service(load_config(write_config(tmp_path, _mqtt(broker.port))))
    watcher = Watcher(broker.port, [f"{R}/odds", f"{R}/state", f"{R}/reply"])
    stop, thread = _serve(service)
    try:
        [bridge] = [e for e in service.extensions if isinstance(e, MqttBridge)]
        assert bridge.wait_ready(WAIT)
        for i, command in enumerate(INTERSECT):
            watcher.send(f"{R}/command", {**command, "transaction": f"t{i}"})
            assert watcher.reply(f"{R}/reply", f"t{i}")["status"] == "ok"
        expected = table_view(intersect_declare())["odds"]  # the exact answer, unbounded
        assert expected is not None and expected["status"] == "ready"
        wait_until(
            lambda: any(m.json() == expected for m in watcher.on(f"{R}/odds")),
            "the exact odds on …/odds",
        )
        seen = [m.json() for m in watcher.on(f"{R}/odds") if m.payload]
        pending = [o for o in seen if o and o["status"] == "pending"]
        assert pending and pending[0]["groups"] == []  # no old figure shown as current
        assert seen.index(pending[-1]) < seen.index(expected)  # pending, then the answer
        wait_until(
            lambda: watcher.last(f"{R}/state").json()["odds"] == expected,
            "the exact odds on …/state",
        )
        assert watcher.last(f"{R}/state").json()["answers"] == {}
        assert service.output is not None
        wait_until(
            lambda: service.output.view is not None and service.output.view["odds"] == expected,
            "the panel's view replaced by the answered one",
        )
    finally:
        stop.set()
        thread.join(30)
        watcher.close()


def test_an_answer_for_a_state_the_table_left_is_dropped(tmp_path) -> None:
    """Only the newest state's answers are worth having: the child busy with an older one is
    killed, and no listener ever hears of that older state."""
    told: list[engine.TableState] = []
    VIEWS.listen(told.append)
    worker = VIEWS.start_answers()
    try:
        old = largest_fight()
        new = intersect_declare()
        cold()  # answers asked before in this process are memoised: these must be pending
        assert VIEWS(old)["answers"] == {"forecast": "pending"}
        wait_until(lambda: worker.pid is not None, "the child computing the old state")
        assert VIEWS(new)["answers"] == {"odds": "pending"}
        wait_until(lambda: any(s is new for s in told), "the new state's answer")
        assert all(s is not old for s in told)
        assert worker.stats.cancelled >= 1 and VIEWS(new)["odds"]["status"] == "ready"
    finally:
        VIEWS.unlisten(told.append)
        VIEWS.stop_answers()


def test_a_state_with_nothing_to_answer_stops_an_older_state_s_child() -> None:
    """The table moved on to a state with no pending answer (the fight ended, the Performance
    was cancelled): the child still computing the old state's forecast is killed, not left to
    spend the CPU the table shares with it (issue 27: end_combat took 460 ms on a quarter
    core while it ran)."""
    worker = VIEWS.start_answers()
    told: list[engine.TableState] = []
    VIEWS.listen(told.append)
    try:
        fight = largest_fight()
        cold()
        assert VIEWS(fight)["answers"] == {"forecast": "pending"}
        wait_until(lambda: worker.pid is not None, "the child computing the fight's forecast")
        after, _ = engine.apply(fight, {"cmd": "end_combat"})
        assert VIEWS(after)["answers"] == {}
        wait_until(lambda: worker.stats.cancelled >= 1, "the fight's child killed")
        assert all(s is not fight for s in told)
    finally:
        VIEWS.unlisten(told.append)
        VIEWS.stop_answers()


def test_the_answers_child_runs_at_nice_19_not_in_the_idle_class() -> None:
    """Below the table, never starved: the idle class runs only on an idle CPU, so beside any
    busy process of ordinary priority (a shared CI machine, a kiosk browser on the Pi) an
    answer never came; at nice 19 it weighs 15 against the table's 1024 and still comes."""
    worker = VIEWS.start_answers()
    try:
        fight = largest_fight()
        cold()
        assert VIEWS(fight)["answers"] == {"forecast": "pending"}
        wait_until(lambda: worker.pid is not None, "the child computing the fight's forecast")
        pid = worker.pid
        assert pid is not None
        wait_until(lambda: os.getpriority(os.PRIO_PROCESS, pid) == 19, "the child at nice 19")
        assert os.sched_getscheduler(pid) == os.SCHED_OTHER
    finally:
        VIEWS.stop_answers()


@pytest.mark.error_log  # the watchdog withheld is said in the log
def test_a_stuck_publisher_stops_the_watchdog(tmp_path, broker) -> None:
    """A wedge that is not the loop's (the MQTT publisher stuck on one item) must also stop the
    pings, so that systemd restarts a table whose pages no longer hear from it."""
    systemd = Systemd(str(tmp_path / "notify"))
    notifier = Notifier({"NOTIFY_SOCKET": systemd.address, "WATCHDOG_USEC": "200000"})
    decisions = Decisions()  # after the bridge: asked after it, in the same decision
    service = Service(
        load_config(write_config(tmp_path, _mqtt(broker.port))),
        notifier=notifier,
        extra=[decisions],
    )
    stop, thread = _serve(service)
    wedge = threading.Event()
    try:
        systemd.until("READY")
        [bridge] = [e for e in service.extensions if isinstance(e, MqttBridge)]
        assert bridge.wait_ready(WAIT)
        assert "WATCHDOG" in systemd.until("WATCHDOG")
        handle = bridge.publisher._handle
        bridge.publisher._handle = lambda item: (wedge.wait(60), handle(item))  # type: ignore[method-assign]
        service.loop.submit({"cmd": "adjust_hero", "hero": "aria", "favor": 1}, "script")
        interval = notifier.watchdog_interval
        assert interval is not None
        no_ping_while_stuck(systemd, decisions, lambda: bridge.busy_for() > interval)
        wedge.set()
        assert "WATCHDOG" in systemd.until("WATCHDOG")  # fed again once it turns
    finally:
        wedge.set()
        stop.set()
        thread.join(6 * WAIT)  # a deadline: the stop returns as soon as it is done
        systemd.close()
    assert not thread.is_alive()


@pytest.mark.error_log  # the restarted service sees its predecessor's retained identity
def test_a_restart_on_the_adversarial_journal_is_ready_and_publishes_at_once(
    tmp_path, broker
) -> None:
    """Whatever the journal holds (the largest legal fight, an Intersect declare), the
    restarted service is READY, publishes …/state with the answers pending, feeds the
    watchdog, and then publishes the answers (issue 27, item 3)."""
    config = write_config(tmp_path, _mqtt(broker.port))
    first = ServiceProcess(config)
    commands = [*fight_commands(), *INTERSECT]
    first.send(commands)
    for n in range(1, len(commands) + 1):
        assert first.answer(timeout=60) == f"ack {n}"
    first.kill()

    systemd = Systemd(str(tmp_path / "notify"))
    env = {"NOTIFY_SOCKET": systemd.address, "WATCHDOG_USEC": "1000000"}
    watcher = Watcher(broker.port, [f"{R}/state", f"{R}/combat", f"{R}/odds"])
    second = ServiceProcess(config, env=env)
    try:
        systemd.until("READY")
        systemd.until("WATCHDOG")
        wait_until(
            lambda: any(m.json().get("combat") for m in watcher.on(f"{R}/state") if m.payload),
            "the restored fight on …/state",
        )
        wait_until(
            lambda: (
                # a retained section may still be the killed service's last (null: none yet)
                (watcher.last(f"{R}/combat").json() or {}).get("forecast_status") in ANSWERED
                and (watcher.last(f"{R}/odds").json() or {}).get("status") in ANSWERED
            ),
            "the answers after the restart",
            timeout=120,
        )
        assert "WATCHDOG" in systemd.until("WATCHDOG")
        # and the table still turns: a command is answered
        second.send([{"cmd": "adjust_hero", "hero": "aria", "favor": 1}])
        assert second.answer(timeout=30) == f"ack {len(commands) + 1}"
    finally:
        second.kill()
        watcher.close()
        systemd.close()
