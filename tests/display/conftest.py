"""The e-ink panel: views from the real engine (``tests.harness.views``), rendered and compared
with ``golden/``; the drivers against stood-in SPI/GPIO; the worker's coalescing.
Fixtures: each module's own; ``example_state`` from tests/conftest.py."""
