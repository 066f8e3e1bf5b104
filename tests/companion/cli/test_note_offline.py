"""``rhuna-table note`` to a table whose service is offline (issue 41 item 13): the retained
``…/status`` says ``offline``, so the note is refused at once, saying so, not after waiting
for an answer that cannot come and "may or may not have been kept". A real Mosquitto."""

from __future__ import annotations

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from companion.cli import main
from tests.harness.broker import running_broker
from tests.harness.service import write_config


def test_a_note_to_an_offline_table_says_it_is_offline(tmp_path, capsys) -> None:
    with running_broker(tmp_path / "broker") as broker:
        config = write_config(tmp_path, f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
        client = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        client.publish("rhuna/example/status", "offline", qos=1, retain=True).wait_for_publish()
        client.loop_stop()
        client.disconnect()
        capsys.readouterr()
        code = main(["note", "the bridge is out", "--config", str(config)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "offline" in err and "was not kept" in err, err
    assert "may or may not" not in err
