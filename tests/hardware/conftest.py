"""The table's hardware: real gpiozero devices on its MockFactory (``tests.harness.gpio``), the
wheel's state machines, enrolment. Fixtures: each module's own; ``example_state`` from
tests/conftest.py."""
