"""The web pages in Debian's Chromium via Playwright, on a real service and Mosquitto
(``tests.harness.web``). Fixtures: each module's own (web2 keeps them)."""
