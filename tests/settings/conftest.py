"""settings/: the config checker's and plain text's refusals. Fixtures: each module's own."""
