"""The MQTT bridge and accounts against a real Mosquitto. Fixtures: ``broker`` from
tests/companion/conftest.py; ``tests.harness.broker`` has the Watcher and ``table_on_mqtt``."""
