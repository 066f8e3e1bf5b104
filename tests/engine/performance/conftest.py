"""engine/performance/: P1–P23 and their exact odds (the oracle and Monte Carlo beside them). Fixtures: tests/engine/conftest.py."""
