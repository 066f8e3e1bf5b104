"""The SQLite journal: crash, ack and restore tests on the real Store, some in a real
``rhuna-table run`` process (``tests.harness.service``)."""
