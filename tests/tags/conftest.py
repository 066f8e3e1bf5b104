"""tags/: the tag registry and the UID it keys on (the reader hands it the canonical value, never
text to parse again). Fixtures: each module's own."""
