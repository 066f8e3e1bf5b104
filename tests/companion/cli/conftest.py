"""``rhuna-table``'s subcommands as a newcomer meets them: run in process (``main([...])``) or
as a real subprocess. Fixtures: each module's own."""
