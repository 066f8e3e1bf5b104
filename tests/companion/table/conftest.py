"""companion/table/: the TableLoop (subscribers, bounded work, the loop's thread) and the SQLite
journal (crash, ack and restore tests on the real Store, some in a real ``rhuna-table run``
process, ``tests.harness.service``). Fixtures: each module's own."""
