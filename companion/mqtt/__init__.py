"""MQTT for the table: retained state, an event stream, commands with replies, HA discovery.

:class:`MqttBridge` is the extension the service starts (``start(loop)`` /
``stop()``) with the :class:`MqttConfig` that :func:`load_mqtt_config` reads
from the config file's ``[mqtt]`` table. See docs/mqtt.md.
"""

from companion.mqtt.bridge import MqttBridge
from companion.mqtt.config import MqttConfig, load_mqtt_config

__all__ = ["MqttBridge", "MqttConfig", "load_mqtt_config"]
