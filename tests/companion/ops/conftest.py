"""companion/ops/: the convention's brokers, real Mosquittos bridged to a venue
(``tests.harness.venue``), the venue file, the wall and the director over them."""
