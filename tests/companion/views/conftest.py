"""companion/views/: the view cache and the answers' worker (its child process, real, forked by
the fork server). Fixtures: each module's own."""
