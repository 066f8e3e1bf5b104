"""The whole Service: its config, systemd and sd_notify, MQTT, the fault tests and the short
soak. ``tests.harness.service`` has ``InProcess`` (the Service on a test thread) and the
configs; ``broker`` comes from tests/companion/conftest.py."""
