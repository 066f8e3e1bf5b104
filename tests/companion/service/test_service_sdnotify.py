"""systemd's notify protocol, against real AF_UNIX datagram sockets (a path and the abstract
namespace), from the Service in process and from a real ``rhuna-table run``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import uuid

import pytest

from companion.config import load_config
from companion.service import Service
from companion.table.sdnotify import Notifier
from tests.harness import ROOT, WAIT
from tests.harness.sdnotify import Decisions, Systemd, no_ping_while_stuck
from tests.harness.service import write_config


@pytest.fixture(params=["path", "abstract"])
def systemd(request, tmp_path):
    address = (
        str(tmp_path / "notify") if request.param == "path" else f"@rhuna-test-{uuid.uuid4().hex}"
    )
    receiver = Systemd(address)
    yield receiver
    receiver.close()


def test_ready_status_and_stopping_reach_the_socket(systemd):
    notifier = Notifier({"NOTIFY_SOCKET": systemd.address})
    assert notifier.enabled and notifier.watchdog_interval is None
    assert notifier.ready("table 'x' at #0")
    assert systemd.receive() == {
        "READY": "1",
        "STATUS": "table 'x' at #0",
        "MAINPID": str(os.getpid()),
    }
    assert notifier.status("two\nlines")  # a STATUS= line stays one line
    assert systemd.receive() == {"STATUS": "two lines"}
    assert notifier.stopping("bye")
    assert systemd.receive() == {"STOPPING": "1", "STATUS": "bye"}
    notifier.close()


def test_no_socket_no_systemd_nothing_sent():
    notifier = Notifier({})
    assert not notifier.enabled and not notifier.ready("x") and not notifier.watchdog()


def test_a_socket_that_went_away_is_a_warning_not_a_crash(tmp_path, caplog):
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert not notifier.status("x") and not notifier.status("y")
    assert caplog.text.count("cannot notify systemd") == 1


def test_the_watchdog_interval_is_half_and_only_for_this_process():
    env = {"NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "30000000"}
    assert Notifier(env).watchdog_interval == 15.0
    assert Notifier({**env, "WATCHDOG_PID": str(os.getpid())}).watchdog_interval == 15.0
    assert Notifier({**env, "WATCHDOG_PID": "1"}).watchdog_interval is None
    assert Notifier({**env, "WATCHDOG_USEC": "0"}).watchdog_interval is None


def test_the_loop_pings_the_watchdog_while_it_runs(systemd, tmp_path):
    """READY=1 once the loop runs, WATCHDOG=1 again and again (every WATCHDOG_USEC/2) while it
    runs, STOPPING=1 at the end and no ping after it."""
    notifier = Notifier({"NOTIFY_SOCKET": systemd.address, "WATCHDOG_USEC": "100000"})
    service = Service(load_config(write_config(tmp_path)), notifier=notifier)
    stop = threading.Event()
    thread = threading.Thread(target=service.run, args=(stop,), daemon=True)
    thread.start()
    ready = systemd.until("READY")
    assert ready["STATUS"].startswith("table 'example': #0 commands")
    pings = 0
    while pings < 5:  # how often is the interval's (half WATCHDOG_USEC: Notifier's test)
        message = systemd.receive()
        assert "STOPPING" not in message, message
        pings += "WATCHDOG" in message
    stop.set()
    assert "STOPPING" in systemd.until("STOPPING")
    thread.join(6 * WAIT)
    assert not thread.is_alive()
    systemd.mark("stopped")  # after everything the stopped service sent
    after = systemd.until_mark("stopped")
    assert not [m for m in after if "WATCHDOG" in m], after


def test_a_real_rhuna_table_run_says_ready_and_stops_on_sigterm(systemd, tmp_path):
    config = write_config(tmp_path)
    env = {
        **os.environ,
        "NOTIFY_SOCKET": systemd.address,
        "WATCHDOG_USEC": "2000000",
        "TMPDIR": str(tmp_path),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--config", str(config)],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready = systemd.until("READY")
        assert ready["MAINPID"] == str(proc.pid)
        assert "WATCHDOG" in systemd.until("WATCHDOG")
        proc.send_signal(signal.SIGTERM)
        assert systemd.until("STOPPING")["STATUS"] == "stopping at #0"
        assert proc.wait(WAIT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log = proc.stderr.read()
    assert "SIGTERM: stopping" in log and "Traceback" not in log


@pytest.mark.error_log  # the watchdog withheld is said in the log
def test_a_turn_stuck_on_another_thread_stops_the_watchdog_pings(systemd, tmp_path):
    """Inputs are processed on the thread that submitted them when the loop is idle (issue
    17): a subscriber that never returns on paho's or a reader's thread must stop the pings
    as a wedged loop's thread does, so that systemd restarts the service."""
    notifier = Notifier({"NOTIFY_SOCKET": systemd.address, "WATCHDOG_USEC": "100000"})
    decisions = Decisions()
    service = Service(
        load_config(write_config(tmp_path)), notifier=notifier, extensions=[decisions]
    )
    stop = threading.Event()
    wedge = threading.Event()
    thread = threading.Thread(target=service.run, args=(stop,), daemon=True)
    thread.start()
    try:
        systemd.until("READY")
        assert "WATCHDOG" in systemd.until("WATCHDOG")
        service.loop.subscribe("stuck", lambda outcome: wedge.wait(60))
        submitter = threading.Thread(
            target=service.loop.submit,
            args=({"cmd": "adjust_hero", "hero": "aria", "favor": 1}, "reader:x"),
            daemon=True,
        )
        submitter.start()
        interval = notifier.watchdog_interval
        assert interval is not None
        no_ping_while_stuck(systemd, decisions, lambda: service.loop.busy_for() > interval)
        wedge.set()
        submitter.join(WAIT)
        assert "WATCHDOG" in systemd.until("WATCHDOG")  # back once the turn is over
    finally:
        wedge.set()
        stop.set()
        thread.join(6 * WAIT)  # a deadline: the stop returns as soon as it is done
    assert not thread.is_alive()
