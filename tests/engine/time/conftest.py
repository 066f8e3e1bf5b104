"""engine/time/: T1–T12, the Time Board, its draws, weather, Rest and temporary tokens. Fixtures: tests/engine/conftest.py."""
