"""The tags: from an RFID tag's UID to the token it is, and from a token laid to a command.

* :mod:`tags.registry` — the tag registry (UID ↔ token id), its one opener and its
  durable save;
* :mod:`tags.config` — the ``[registry]`` section of ``rhuna.toml``;
* :mod:`tags.enroll` — enrolment: walking a bag's tokens and giving each its tag;
* :mod:`tags.commands` — a tag laid on a reader, by the reader's role, to a command.

The UID codec and its value stay with the readers that produce UIDs
(:mod:`firmware_bridge.uid`): a reader makes each UID a canonical
:class:`~firmware_bridge.uid.Uid` once, the :class:`~firmware_bridge.events.TagEvent`
carries it, and the registry looks it up as it is. This package imports the
engine, the readers' events and :mod:`settings`; never the service.
"""
