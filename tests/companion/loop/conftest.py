"""The TableLoop: subscribers, bounded work, the loop's thread. Fixtures: each module's own."""
