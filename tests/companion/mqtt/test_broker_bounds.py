"""The shipped broker is bounded (issue 45 item 4): systemd/mosquitto-rhuna.conf refuses a
packet larger than the rules data allows a command, so neither the broker nor the service
reads a huge publish into memory.

A real Mosquitto on the shipped snippet (tests.harness.broker.running_pi_broker) and a real
``rhuna-table run`` logged in as the table's service; a raw socket streams a 250 MB PUBLISH
(the gm's, which the ACL lets through; and a viewer's, which it refuses) without holding it in
memory. Before, the service peaked at 760 MB and the broker at 696 MB (485 MB for the
viewer's refused publish).
"""

from __future__ import annotations

import re
import signal
import socket
import struct
import tomllib
from pathlib import Path

import pytest

from tests.harness import ROOT, wait_until
from tests.harness.broker import PI_SNIPPET
from tests.harness.service import ServiceProcess, write_config

HUGE = 250 * 1024 * 1024
LIMIT_MB = 100


def _conf(name: str) -> int:
    found = re.findall(rf"^{name}\s+(\d+)\s*$", PI_SNIPPET.read_text(), re.M)
    assert len(found) == 1, f"{PI_SNIPPET}: one {name} line"
    return int(found[0])


def test_max_packet_size_holds_a_command_and_the_services_own_messages():
    """The limit bounds a client's packet, the service's included: at twice the largest
    legal command (32768) the broker refused the service's …/vocabulary (33,090 bytes once
    the bag audit's command was added) and the service reconnected for ever."""
    from companion.mqtt.bridge import _vocabulary

    rules = tomllib.loads((ROOT / "engine" / "data" / "rules.toml").read_text())
    largest = rules["limits"]["payload_bytes"]  # the largest legal command
    limit = _conf("max_packet_size")
    assert limit >= 2 * largest  # room for its topic and properties
    assert limit >= 4 * len(_vocabulary())  # the service's biggest fixed message, with room
    assert limit <= 1024 * 1024  # still refused at its header, far below a Pi's memory
    assert 0 < _conf("max_queued_messages") <= 1000
    assert 0 < _conf("max_queued_bytes") <= 16 * 1024 * 1024


def _peak_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]


def _pid_of(conf: Path) -> int:
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if str(conf).encode() in cmdline and b"mosquitto" in cmdline:
                return int(proc.name)
    raise AssertionError(f"no mosquitto running on {conf}")


def _utf8(s: str) -> bytes:
    return struct.pack(">H", len(s)) + s.encode()


def _remaining(n: int) -> bytes:
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (128 if n else 0))
        if not n:
            return bytes(out)


def _stream_huge_publish(port: int, user: str, password: str, topic: str) -> int:
    """CONNECT (MQTT 3.1.1), then one PUBLISH of HUGE bytes streamed 64 KiB at a time until the
    broker hangs up; how many bytes it took."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    body = _utf8("MQTT") + bytes([4, 0xC2]) + struct.pack(">H", 30)
    body += _utf8("huge-publisher") + _utf8(user) + _utf8(password)
    s.sendall(b"\x10" + _remaining(len(body)) + body)
    assert s.recv(4)[:2] == b"\x20\x02"
    head = _utf8(topic)
    s.sendall(b"\x30" + _remaining(len(head) + HUGE) + head)
    chunk = b"x" * 65536
    sent = 0
    try:
        while sent < HUGE:
            s.sendall(chunk)
            sent += len(chunk)
    except OSError:  # the broker closed the connection
        pass
    finally:
        s.close()
    return sent


@pytest.mark.parametrize("who", ["gm", "overlay"])
def test_a_250_mb_publish_leaves_broker_and_service_small(tmp_path, pi_broker, who):
    acc, plain, _ = pi_broker
    table = acc.tables["example"]
    mqtt = (
        f'[mqtt]\nhost = "127.0.0.1"\nport = {plain}\nreconnect_min_delay = 1\n'
        f'username = "example.service"\npassword = "{table.service}"\n'
    )
    config = write_config(tmp_path / "t", mqtt)
    service = ServiceProcess(config)
    try:
        service.send([{"cmd": "adjust_hero", "hero": "aria", "favor": 1}])
        assert service.answer() == "ack 1"
        log = tmp_path / "t" / "service.log"
        wait_until(lambda: "connected" in log.read_text(), "the service on the broker")
        password = table.gm if who == "gm" else table.viewers[who]
        _stream_huge_publish(plain, f"example.{who}", password, "rhuna/example/command")
        broker_pid = _pid_of(tmp_path / "mosquitto.conf")
        service.send([{"cmd": "adjust_hero", "hero": "aria", "favor": -1}])
        assert service.answer() == "ack 2"  # the table still answers
        broker_mb, service_mb = _peak_mb(broker_pid), _peak_mb(service.proc.pid)
        print(f"{who}: broker peak {broker_mb:.1f} MB, service peak {service_mb:.1f} MB")
        assert broker_mb < LIMIT_MB and service_mb < LIMIT_MB
    finally:
        service.proc.send_signal(signal.SIGTERM)
        service.proc.wait(30)
        service.rest()
