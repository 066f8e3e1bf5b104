"""TableLoop.subscribe(owner, fn) / unsubscribe(owner): extensions come and go by owner.

A composition root (the service, the demo) adds the panel, the log and each
extension under its own owner; stopping an extension takes back everything it
added, and nothing it added hears another outcome.
"""

from __future__ import annotations

import logging
import threading

from companion.table.loop import Outcome, TableLoop
from tags.registry import TagRegistry
from tests.harness import WAIT, wait_until

FAVOR = {"cmd": "adjust_hero", "hero": "aria", "favor": 1}  # P18: a sheet change, always accepted


def loop_of(example_state) -> TableLoop:
    return TableLoop(example_state, TagRegistry.synthetic(example_state.tokens))


def test_subscribers_hear_in_order_and_unsubscribe_takes_back_all_of_an_owner(example_state):
    loop = loop_of(example_state)
    heard: list[str] = []
    ext = object()
    loop.subscribe("panel", lambda o: heard.append("panel"))
    loop.subscribe(ext, lambda o: heard.append("ext-a"))
    loop.subscribe("log", lambda o: heard.append("log"))
    loop.subscribe(ext, lambda o: heard.append("ext-b"))
    assert loop.owners() == ("panel", ext, "log")
    loop.submit(FAVOR)
    loop.step(1)
    assert heard == ["panel", "ext-a", "log", "ext-b"]

    assert loop.unsubscribe(ext) == 2
    assert loop.unsubscribe(ext) == 0  # twice is harmless
    assert loop.owners() == ("panel", "log")
    heard.clear()
    loop.submit(FAVOR)
    loop.step(1)
    assert heard == ["panel", "log"]


def test_first_subscribers_are_told_before_the_rest_and_keep_their_place(example_state):
    """An output somebody waits on (the MQTT bridge, a script's replies) is told before the
    panel and the log, whenever it subscribed; among themselves each kind keeps its order,
    and an owner's unsubscribe takes back its first and its other subscriptions alike."""
    loop = loop_of(example_state)
    heard: list[str] = []
    bridge, script = object(), object()
    loop.subscribe("log", lambda o: heard.append("log"))
    loop.subscribe("panel", lambda o: heard.append("panel"))
    loop.subscribe(bridge, lambda o: heard.append("bridge"), first=True)
    loop.subscribe(script, lambda o: heard.append("script"), first=True)
    loop.subscribe(bridge, lambda o: heard.append("bridge-late"))
    loop.subscribe("journal", lambda o: heard.append("journal"))
    assert loop.owners() == (bridge, script, "log", "panel", "journal")
    loop.submit(FAVOR)
    loop.step(1)
    assert heard == ["bridge", "script", "log", "panel", "bridge-late", "journal"]

    assert loop.unsubscribe(bridge) == 2
    loop.subscribe("overlay", lambda o: heard.append("overlay"), first=True)
    heard.clear()
    loop.submit(FAVOR)
    loop.step(1)
    assert heard == ["script", "overlay", "log", "panel", "journal"]


def test_the_same_function_twice_for_one_owner_is_told_once(example_state):
    loop = loop_of(example_state)
    heard: list[Outcome] = []
    loop.subscribe("x", heard.append)
    loop.subscribe("x", heard.append)
    loop.subscribe("y", heard.append)  # another owner's subscription is its own
    loop.submit(FAVOR)
    loop.step(1)
    assert len(heard) == 2 and len(loop.subscribers) == 2


def test_a_failing_subscriber_is_logged_with_its_owner_and_the_rest_are_told(example_state, caplog):
    loop = loop_of(example_state)
    heard: list[Outcome] = []
    loop.subscribe("broken-overlay", lambda o: 1 / 0)
    loop.subscribe("panel", heard.append)
    loop.submit(FAVOR)
    with caplog.at_level(logging.ERROR, "rhuna.loop"):
        loop.step(1)
    assert len(heard) == 1 and heard[0].error is None
    assert "'broken-overlay' failed" in caplog.text


def test_unsubscribing_from_another_thread_while_the_loop_tells_is_safe(example_state):
    """The loop reads one consistent tuple per outcome: an owner that goes away mid-stream
    hears a prefix of the outcomes, then nothing; the others hear every one."""
    loop = loop_of(example_state)
    kept: list[Outcome] = []
    gone: list[Outcome] = []
    reached, unsubscribed = threading.Event(), threading.Event()

    def keep(outcome: Outcome) -> None:
        kept.append(outcome)
        if len(kept) == 50:  # the loop holds here, mid-tell, until the owner has gone
            reached.set()
            unsubscribed.wait(WAIT)

    loop.subscribe("kept", keep)
    loop.subscribe("gone", gone.append)
    for _ in range(300):
        loop.submit(FAVOR)
    stop = threading.Event()
    thread = threading.Thread(target=loop.run, args=(stop, 0.01))
    thread.start()
    try:
        assert reached.wait(WAIT)
        loop.unsubscribe("gone")
        after = len(gone)
        unsubscribed.set()
        wait_until(lambda: len(kept) == 300, "every outcome told")
    finally:
        unsubscribed.set()
        stop.set()
        thread.join(5)
    assert len(kept) == 300
    assert after <= len(gone) <= after + 1 < 300  # at most the outcome being told then
    assert gone == kept[: len(gone)]


def test_the_mqtt_bridge_subscribes_as_its_own_owner_and_leaves_nothing_behind(example_state):
    """MqttBridge.start subscribes under the bridge itself, told before the panel that
    subscribed earlier (first: the overlay and the remote wait on its events); stop()
    unsubscribes it (no broker is needed for that: paho connects in the background and the
    stop disconnects)."""
    from companion.mqtt import MqttBridge, load_mqtt_config

    loop = loop_of(example_state)
    loop.subscribe("panel", lambda o: None)
    bridge = MqttBridge(load_mqtt_config({"host": "127.0.0.1", "port": 9}, "test.toml"))
    bridge.start(loop)
    assert loop.owners() == (bridge, "panel")
    bridge.stop(timeout=1)
    assert loop.owners() == ("panel",)
