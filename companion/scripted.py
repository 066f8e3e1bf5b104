"""The real service on emulated parts, with hands for a script: ``make demo`` and the end-to-end tests.

:class:`ScriptedTable` is a :class:`~companion.service.Service` built exactly as
``rhuna-table run --config …`` builds it — journal, tag registry, readers, panel
worker, Performance Wheel and the extensions the config's sections ask for
(``[mqtt]``) — from a config whose reader is an ``emulated-hub`` (a
:class:`~firmware_bridge.emulator.HubEmulator` on a real pty) and whose
``[gpio] pin_factory`` is ``"mock"`` (gpiozero's MockFactory). So the demo and
production run the same composition: nothing here wires a part of its own.

What the facade adds are the players' hands, and a way to wait for what they did:

- :meth:`~ScriptedTable.lay` / :meth:`~ScriptedTable.lift`: a token on one of the
  emulated hub's channels (the Draw Board slots, the Favor and Time readers); it
  travels serial frames → ``TagEvent`` → tag registry → command → engine → journal
  → panel, and the call returns that tag's :class:`~companion.table.loop.Outcome`;
- :meth:`~ScriptedTable.dial` / :meth:`~ScriptedTable.button`: the encoder turned
  and pushed, the table buttons pressed, on the MockFactory pins
  (:class:`hardware.mock.MockHand`);
- :meth:`~ScriptedTable.command`: a command as the WorldKeeper's phone sends it;
- ``flipbook=True``: after each step, wait until the panel shows it (a frame per
  step for the demo's flip-book; the service itself never waits on the panel).

While a script plays, the script's thread steps the service's loop (as
:meth:`Service.run <companion.service.Service.run>` does), so each hand knows
exactly which outcome is its own; :meth:`~ScriptedTable.serve` then hands the loop
to ``Service.run`` on a thread of its own (``rhuna-table demo --serve``).

:func:`emulated_config` writes such a config's text and checks it with the one
config checker (:func:`companion.config.config_from_text`, which ``load_config``
uses): a table on no hardware at all.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from companion.config import Config, config_from_text
from companion.service import Service
from companion.table.loop import Outcome, TableLoop
from firmware_bridge.emulator import HubEmulator
from firmware_bridge.reader import SerialReader
from firmware_bridge.uid import normalise_uid
from hardware.mock import MockHand
from settings.errors import ConfigError
from tags.registry import TagRegistry

#: the emulated hub's channels in :func:`emulated_config`: the Draw Board slots 0–3, Favor 4,
#: Time 5 (as examples/rhuna-emulated.toml)
CHANNELS = 6
ROLES: Mapping[int, str] = {4: "favor", 5: "time"}
#: seconds a hand waits for the table to react (a loaded machine: the reader polls in 5 ms)
REACT = 10.0
#: seconds :meth:`ScriptedTable.close` gives a served table's stop before it says it hangs
STOP = 120.0


def _toml(value: str | Path) -> str:
    """A TOML basic string (JSON's escapes are TOML's; no surrogates with ensure_ascii off)."""
    return json.dumps(str(value), ensure_ascii=False)


def emulated_config(
    table: str | Path,
    state_dir: str | Path,
    *,
    out_dir: str | Path,
    panel: str = "4.2",
    colour: str = "bwr",
    channels: int = CHANNELS,
    roles: Mapping[int, str] = ROLES,
    mqtt: Mapping[str, Any] | None = None,
    source: str = "emulated table",
) -> Config:
    """The config of a table with no hardware: ``table`` on an emulated hub named
    ``draw-board`` (``channels``, ``roles``), synthetic tags, the PNG panel writing into
    ``out_dir``, the wheel on gpiozero's MockFactory, the journal in ``state_dir``, no
    recap; ``mqtt`` is the ``[mqtt]`` section (None: ``enabled = false``).

    >>> cfg = emulated_config("examples/table.toml", "state", out_dir="out")  # checked, not made
    >>> [(r.backend, r.name, r.roles[4]) for r in cfg.readers], cfg.gpio.pin_factory
    ([('emulated-hub', 'draw-board', 'favor')], 'mock')
    """
    role_items = ", ".join(f"{int(ch)} = {_toml(role)}" for ch, role in roles.items())
    lines = [
        "[table]",
        f"file = {_toml(Path(table).resolve())}",
        "[state]",
        f"dir = {_toml(Path(state_dir).resolve())}",
        "[[readers]]",
        'backend = "emulated-hub"',
        'name = "draw-board"',
        f"channels = {int(channels)}",
        f"roles = {{ {role_items} }}",
        "[registry]",
        "synthetic = true",
        "[display]",
        'driver = "png"',
        f"panel = {_toml(panel)}",
        f"colour = {_toml(colour)}",
        f"out_dir = {_toml(Path(out_dir).resolve())}",
        "[gpio]",
        'pin_factory = "mock"',
        "[mqtt]",
    ]
    if mqtt is None:
        lines.append("enabled = false")
    for key, value in (mqtt or {}).items():
        lines.append(f"{key} = {json.dumps(value, ensure_ascii=False)}")
    lines += ["[record]", "recap = false"]
    return config_from_text("\n".join(lines) + "\n", source, base=Path.cwd())


class ScriptedTable:
    """A :class:`Service` of ``config`` and the hands a script plays it with (a context
    manager: entering starts it as ``Service.run`` would, leaving stops it cleanly).

    ``new_session``: archive the state directory's journal first, as
    ``rhuna-table run --new-session`` (the demo: each run plays its script on a fresh table).
    ``hub``: which ``emulated-hub`` reader :meth:`lay` uses (default: the first).
    """

    def __init__(
        self,
        config: Config,
        *,
        new_session: bool = False,
        flipbook: bool = False,
        hub: str | None = None,
    ) -> None:
        if not any(r.backend == "emulated-hub" for r in config.readers):
            raise ConfigError(
                f"{config.source}: readers: a scripted table lays its tokens on an emulated hub"
                ' — add [[readers]] backend = "emulated-hub"'
            )
        if config.gpio is not None and config.gpio.pin_factory != "mock":
            raise ConfigError(
                f"{config.source}: gpio.pin_factory: a scripted table turns the wheel on"
                ' gpiozero\'s MockFactory — write pin_factory = "mock" (or enabled = false)'
            )
        names = [r.name for r in config.readers if r.backend == "emulated-hub"]
        if hub is not None and hub not in names:
            raise ConfigError(
                f"{config.source}: readers: no emulated hub named {hub} (emulated hubs:"
                f" {', '.join(names)})"
            )
        self.hub_name = hub or names[0]
        self.flipbook = flipbook
        #: built exactly as `rhuna-table run` builds it (companion/cli/run.py)
        self.service = Service(config, new_session=new_session)
        self.laid: dict[int, str] = {}
        self.hand = (
            MockHand(self.service.pin_factory, config.gpio) if config.gpio is not None else None
        )
        self._serving: threading.Thread | None = None
        self._stop = threading.Event()
        self._closed = False

    @classmethod
    def emulated(
        cls,
        table: str | Path,
        folder: str | Path,
        *,
        panel: str = "4.2",
        colour: str = "bwr",
        mqtt: Mapping[str, Any] | None = None,
        new_session: bool = False,
        flipbook: bool = False,
    ) -> ScriptedTable:
        """``table`` on :func:`emulated_config`: frames in ``folder``, the journal in
        ``folder/state``."""
        folder = Path(folder)
        config = emulated_config(
            table, folder / "state", out_dir=folder, panel=panel, colour=colour, mqtt=mqtt
        )
        return cls(config, new_session=new_session, flipbook=flipbook)

    # --- the service's parts, by the names a script reads -------------------------------

    @property
    def loop(self) -> TableLoop:
        return self.service.loop

    @property
    def registry(self) -> TagRegistry:
        return self.service.registry

    @property
    def hub(self) -> HubEmulator:
        """The emulated token hub :meth:`lay` lays tokens on."""
        return self.service.emulators[self.hub_name]

    @property
    def reader(self) -> SerialReader:
        return next(r for r in self.service.readers if r.name == self.hub_name)

    @property
    def worker(self) -> Any:
        return self.service.worker

    @property
    def controls(self) -> Any:
        """The Performance Wheel (:class:`hardware.controls.TableControls`); None without GPIO."""
        return self.service.controls

    # --- life cycle ---------------------------------------------------------------------

    def __enter__(self) -> ScriptedTable:
        try:
            self.service.start()
            if not self.reader.wait_online(REACT):
                raise RuntimeError("the emulated token hub did not come online")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def serve(self) -> None:
        """From now on the service's own loop (``Service.run``, on a thread) takes every input:
        the wheel, the readers, MQTT commands from the web pages. The hands are not used after
        this; :meth:`close` stops it."""
        if self._serving is not None:
            return
        self._serving = threading.Thread(
            target=self.service.run, args=(self._stop,), name="scripted-service", daemon=True
        )
        self._serving.start()

    def close(self) -> None:
        """Stop the service as at the end of an evening: inputs, the queue drained, the
        extensions, a snapshot, the journal closed, the panel's last frame. Safe twice."""
        if self._closed:
            return
        self._closed = True
        if self._serving is not None:
            self._stop.set()
            # until run() has stopped the service: each part's stop is bounded, so this is a
            # deadline for a hang, not a wait; given up on silently, the stop went on beside
            # the next test and a part's late complaint failed that one
            self._serving.join(STOP)
            if self._serving.is_alive():
                raise RuntimeError(f"the served table did not stop within {STOP:.0f} s")
        self.service.stop()  # after run(): already stopped, a no-op

    # --- the players' hands -------------------------------------------------------------

    def command(self, cmd: dict[str, Any], source: str = "worldkeeper") -> Outcome:
        """A command from the WorldKeeper's phone, MQTT or the CLI; its outcome."""
        self.loop.submit(cmd, source)
        return self._next(lambda o: o.command is cmd or o.source == source)

    def dial(self, choices: Mapping[str, Any]) -> Outcome:
        """Turn the encoder to each ring's choice and push, ring after ring, until it declares
        (or begins a Performance). Rings not named keep what the wheel offers (Training: the
        sheet's)."""
        hand, controls = self._wheel()
        for _ in range(16):
            sel = controls.selection()
            ring = sel["ring"]
            if ring is None:
                raise KeyError(f"the wheel has nothing to dial ({sel['message'] or 'idle'})")
            if ring in choices:
                label = str(choices[ring])
                if label not in sel["options"]:
                    raise KeyError(
                        f"the {ring} ring has no {label} (it offers: {', '.join(sel['options'])})"
                    )
                hand.turn(sel["options"].index(label) - (sel["position"] or 0))
            hand.push()
            self._settle()
            outcome = self._from_wheel()
            if outcome is not None:
                return outcome
            if controls.selection()["message"]:
                raise KeyError(f"the wheel refuses: {controls.selection()['message']}")
        raise KeyError("the wheel did not declare after 16 pushes")

    def button(self, name: str) -> Outcome | None:
        """Press a table button (resolve, reset, undo, redraw, exert, call_favor, time …); the
        outcome of the command it sent, or None when it only changed the wheel."""
        hand, _ = self._wheel()
        hand.press(name)
        return self._from_wheel()

    def lay(self, channel: int, *, token: str | None = None, uid: str | None = None) -> Outcome:
        """Lay a token (or a raw tag) on the hub's channel; its outcome once the loop has it.
        A token already on that channel is lifted first."""
        if channel in self.laid:
            self.lift(channel)
        # the one UID codec (issue 18 item 6): the reader reports the canonical spelling, so a
        # script's "04:a1:b2:c3" must be compared as 04A1B2C3; a bad UID fails here, at once
        tag = normalise_uid(uid) if uid else self.registry.uid(token or "")
        if tag is None:
            raise KeyError(f"no tag for token {token}")
        self.hub.lay(channel, tag)
        self.laid[channel] = tag
        return self._next(lambda o: o.tag is not None and o.tag.uid == tag and o.tag.present)

    def lift(self, channel: int) -> None:
        """Take a token off a channel and wait until the hub reports it gone."""
        tag = self.laid.pop(channel, None)
        self.hub.lift(channel)
        if tag is not None:
            self._next(lambda o: o.tag is not None and o.tag.uid == tag and not o.tag.present)

    def clear_board(self) -> None:
        """Take every token off."""
        for channel in list(self.laid):
            self.lift(channel)

    # --- waiting for the table ----------------------------------------------------------

    def _wheel(self) -> tuple[MockHand, Any]:
        if self.hand is None or self.controls is None:
            raise KeyError("this table has no wheel ([gpio] enabled = false)")
        return self.hand, self.controls

    def _from_wheel(self) -> Outcome | None:
        """The outcome of what the last wheel input sent, or None if it sent nothing.

        MockFactory pins run gpiozero's handlers in the thread that drives them, so whatever
        the input submitted is in the loop's queue when it returns, and only this thread
        takes from that queue: step until it is empty (readers may add more meanwhile)."""
        found: Outcome | None = None
        while (outcome := self.loop.step(timeout=0)) is not None:
            if found is None and outcome.source == "wheel":
                found = outcome
        self._settle()
        return found

    def _next(self, wanted: Callable[[Outcome], bool], timeout: float = REACT) -> Outcome:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            outcome = self.loop.step(timeout=left)
            if outcome is not None and wanted(outcome):
                self._settle()
                return outcome
        raise TimeoutError("the table did not react in time")

    def _settle(self) -> None:
        if self.flipbook and self.worker is not None:
            self.worker.wait_idle(timeout=REACT)
