"""The operator's tools around the service: broker accounts, ``doctor``, the demo's broker.

:mod:`~companion.ops.accounts` (who may do what on the broker: ``rhuna-table
accounts``), :mod:`~companion.ops.doctor` (``rhuna-table doctor``: it runs each part's
checks, the Pi's own in :mod:`~companion.ops.health`) and
:mod:`~companion.ops.demo_broker` (the private Mosquitto ``make demo`` starts). They sit
beside the CLI, on top: the running table never imports them.
"""
