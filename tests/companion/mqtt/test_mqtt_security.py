"""Logging in to the broker: a Mosquitto password file, and TLS with a CA, a client cert and a key.

The certificates are made here with ``openssl`` (a throwaway CA, a server
certificate for a made-up host name, a client certificate), so the broker
checks the bridge's certificate and the bridge checks the broker's.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from companion.mqtt.client import make_client
from companion.mqtt.topics import Topics
from settings.errors import ConfigError
from tests.harness import missing_real_part, wait_until
from tests.harness.broker import WAIT, R, Watcher, bridge_config, running_broker, table_on_mqtt


def wait_for_error(bridge) -> str:
    wait_until(lambda: bridge.stats.last_error, "the bridge's error")
    assert not bridge.connected
    return str(bridge.stats.last_error)


def password_broker(tmp_path: Path):
    """A broker that knows one user, 'table', with the password 's3cret' (no anonymous)."""
    tool = shutil.which("mosquitto_passwd")
    if tool is None:
        missing_real_part("mosquitto_passwd (Debian package mosquitto)")
    path = tmp_path / "passwords"
    subprocess.run(
        [tool, "-b", "-c", str(path), "table", "s3cret"], check=True, capture_output=True
    )
    return running_broker(tmp_path / "b", extra=f"password_file {path}")


def test_username_and_password_from_the_config_log_in(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    with (
        password_broker(tmp_path) as broker,
        table_on_mqtt(broker.port, username="table", password_file=str(secret)) as (b, _),
    ):
        assert b.wait_ready(WAIT)
        watcher = Watcher(broker.port, [f"{R}/status"], username="table", password="s3cret")
        try:
            assert watcher.first(f"{R}/status").payload == b"online"
        finally:
            watcher.close()


def test_a_wrong_password_is_a_clear_error_not_a_crash(tmp_path):
    with (
        password_broker(tmp_path) as broker,
        table_on_mqtt(broker.port, username="table", password="wrong") as (bridge, _),
    ):
        error = wait_for_error(bridge)
        assert "refused" in error and "authorized" in error.lower()


# --- TLS ------------------------------------------------------------------------------


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Path:
    """A CA; a broker certificate for 'rhuna-broker.test' only; a client certificate."""
    if shutil.which("openssl") is None:
        missing_real_part("openssl (Debian package openssl)")
    d = tmp_path_factory.mktemp("certs")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
            "-subj", "/CN=Rhuna test CA", cwd=d)  # fmt: skip
    for name, san in (("server", "DNS:rhuna-broker.test"), ("client", "DNS:rhuna-table")):
        openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr",
                "-subj", f"/CN={san[4:]}", cwd=d)  # fmt: skip
        (d / f"{name}.ext").write_text(f"subjectAltName={san}\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", f"{name}.crt", "-days", "2",
                "-extfile", f"{name}.ext", cwd=d)  # fmt: skip
    return d


def tls_broker(tmp_path: Path, certs: Path):
    extra = "\n".join(
        [
            f"cafile {certs / 'ca.crt'}",
            f"certfile {certs / 'server.crt'}",
            f"keyfile {certs / 'server.key'}",
            "require_certificate true",  # the bridge must show its client certificate
        ]
    )
    return running_broker(tmp_path / "b", extra=extra)


def test_tls_with_ca_client_cert_and_key(tmp_path, certs):
    """The broker's certificate names another host, so ``insecure = true`` is needed to
    connect by IP; the chain is still checked against our CA, and ours against the broker's."""
    tls = {
        "ca": str(certs / "ca.crt"),
        "cert": str(certs / "client.crt"),
        "key": str(certs / "client.key"),
        "insecure": True,
    }
    with tls_broker(tmp_path, certs) as broker, table_on_mqtt(broker.port, tls=tls) as (b, _):
        assert b.wait_ready(WAIT)
        assert b.stats.connects == 1
        # one SSL connection is never written by one thread while paho's reads it
        assert b.link.client is not None and not b.link.client.direct


def test_tls_refuses_a_broker_whose_certificate_names_another_host(tmp_path, certs):
    tls = {
        "ca": str(certs / "ca.crt"),
        "cert": str(certs / "client.crt"),
        "key": str(certs / "client.key"),
    }
    with tls_broker(tmp_path, certs) as broker, table_on_mqtt(broker.port, tls=tls) as (b, _):
        assert "over TLS" in wait_for_error(b)


def test_tls_without_a_client_certificate_is_refused_by_the_broker(tmp_path, certs):
    tls = {"ca": str(certs / "ca.crt"), "insecure": True}
    with tls_broker(tmp_path, certs) as broker, table_on_mqtt(broker.port, tls=tls) as (b, _):
        wait_for_error(b)
        assert b.stats.connects == 0


def test_unreadable_tls_files_are_a_config_error_naming_tls(tmp_path, certs):
    bogus = tmp_path / "bogus.crt"
    bogus.write_text("not a certificate")
    cfg = bridge_config(1, tls={"ca": str(bogus)})
    with pytest.raises(ConfigError, match=r"mqtt\.tls: cannot use the certificate files"):
        make_client(cfg, Topics("rhuna", "example"), "rhuna-example")
