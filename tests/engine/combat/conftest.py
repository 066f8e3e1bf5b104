"""engine/combat/: C1–C11, the six-tick wheel, its dice, odds and forecast. Fixtures: tests/engine/conftest.py."""
