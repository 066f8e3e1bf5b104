"""The daemon: the table restored from its journal, the readers, the wheel, the panel, extensions.

``Service(config)`` builds everything from a checked :class:`~companion.config.Config`:

- the :class:`~companion.table.loop.TableLoop`, its state restored from the journal
  (:mod:`companion.table.store`), which commits every accepted command before any
  subscriber hears of it;
- one reader thread per ``[[readers]]`` entry (``emulated-hub`` also starts a
  :class:`~firmware_bridge.emulator.HubEmulator` in the process, for a table
  with no hardware at all); a reader that goes down puts a banner on the panel;
- the display worker and :class:`~companion.table.panel_output.PanelOutput`;
- the Performance Wheel and buttons (:class:`hardware.controls.TableControls`);
- ``extensions``: objects with ``start(loop)`` / ``stop()`` that subscribe to the
  loop and submit commands — Zigbee2MQTT style. The MQTT bridge is one
  (registered in :data:`EXTENSIONS`); ``--commands -`` is another.

:meth:`Service.run` runs the loop on the calling (main) thread until SIGTERM or
SIGINT, tells systemd READY=1 / WATCHDOG=1 / STATUS=, has a snapshot taken every
``snapshot_every`` commands or ``store.SNAPSHOT_SECONDS`` (by the store's own thread,
even under continuous input), and stops cleanly: inputs first, then the queue is
drained, then extensions, the store and the panel (which shows the last state).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import logging
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Protocol

from companion.config import Config, ReaderConfig
from companion.table.audit import COMMAND as AUDIT_COMMAND
from companion.table.audit import AuditDesk
from companion.table.board import CROWDED_KEY, Board
from companion.table.board import KEY as BOARD_KEY
from companion.table.loop import Outcome, TableLoop, as_json
from companion.table.panel_output import PanelOutput
from companion.table.ponder import Ponder
from companion.table.sdnotify import Notifier
from companion.table.store import Restored, Store, archive
from companion.views.cache import VIEWS
from display.drivers import open_panel
from display.forkserver_signals import fork_server
from display.process import PRELOAD, ProcessDisplayWorker
from display.render import Frame, Renderer
from display.worker import DisplayWorker
from engine import load_table
from engine.state import TableState
from firmware_bridge.emulator import HubEmulator
from firmware_bridge.events import ReaderStatus, TagEvent
from firmware_bridge.hub import READS_POORLY, HubNotice, HubReader
from firmware_bridge.open_reader import open_reader
from firmware_bridge.pn532 import PN532Reader
from firmware_bridge.reader import SerialReader
from settings.errors import ConfigError
from tags.registry import TagRegistry, open_registry

log = logging.getLogger("rhuna.service")


#: the state directory's folder for emulated hubs' port links (cleared at every start)
RUN_DIR = "run"

#: seconds of quiet before the panel renders (display.worker: a burst is one render, after
#: its MQTT messages); e-ink refreshes take seconds, so the table never sees the wait
PANEL_SETTLE = 0.03

#: seconds a thread that wants the GIL waits before the one holding it is made to let go
#: (while :meth:`Service.run` runs; CPython's default is 5 ms). A thread back from the disk
#: or the network (the loop after a commit, paho's after a wake-up) then waits at most this
#: long behind one computing (the panel's render, the MQTT state's JSON, a snapshot).
SWITCH_INTERVAL = 0.0005

#: display drivers whose frames are drawn in a child process (display.process). The PNG
#: panel is a folder, which two processes may open one after the other; the e-ink drivers
#: keep their pins and SPI bus in the service until that is tried on a Pi.
CHILD_DRIVERS = frozenset({"png"})


class Extension(Protocol):
    """An output or input beside the core (the MQTT bridge, ``--commands``, an overlay feed).

    ``start(loop)`` subscribes with ``loop.subscribe(self, fn)`` and/or ``loop.submit``s from
    its own threads; ``stop()`` releases what it holds. An extension may also have
    ``reader_status(status: ReaderStatus)``, called from reader threads when a
    reader's link changes.
    """

    def start(self, loop: TableLoop) -> None: ...
    def stop(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Collaborators:
    """What an extension's factory is handed, once the table is restored (not the service):
    the checked config, the journal (its file and how many events it told), the restored
    state, the table's :meth:`Service.alert` and its board. A factory reads them through a
    Protocol of its own that names only those it uses (:class:`companion.pages.server.WebHost`,
    :class:`companion.mqtt.extension.BridgeHost`)."""

    config: Config
    journal: Path
    last_event_seq: int
    state: TableState
    alert: Callable[[str, str | None], None]
    #: what each well holds (the bridge's ``…/board`` names the token an unsync well holds)
    board: Board | None = None


if TYPE_CHECKING:  # what the factories are handed meets each one's Protocol (mypy says where not)
    from companion.mqtt.extension import BridgeHost
    from companion.pages.server import WebHost

    def _handed(given: Collaborators) -> tuple[BridgeHost, WebHost]:
        return given, given


#: config section → ``"module:factory"``; ``factory(Collaborators) -> Extension | None``
#: (None: the section asks for nothing). A factory runs once the table is restored, so it can
#: read the journal's last event number and the restored state.
EXTENSIONS: dict[str, str] = {
    "mqtt": "companion.mqtt.extension:mqtt_bridge",
    "web": "companion.pages.server:page_server",
}


def configured_extensions(given: Collaborators) -> list[Extension]:
    """The extensions the config's sections ask for, in :data:`EXTENSIONS` order."""
    out: list[Extension] = []
    for section, target in EXTENSIONS.items():
        module, _, name = target.partition(":")
        factory: Callable[[Collaborators], Extension | None] = getattr(
            importlib.import_module(module), name
        )
        extension = factory(given)
        if extension is not None:
            out.append(extension)
            log.info("[%s]: %s", section, type(extension).__name__)
    return out


def load_registry(config: Config, initial: TableState) -> TagRegistry:
    """The tag registry the config names: enrolled (a file), synthetic, or empty (no readers)."""
    if config.synthetic:
        return TagRegistry.synthetic(initial.tokens)
    path = config.registry_file
    assert path is not None  # the config checker gives a file whenever synthetic is false
    if not path.exists() and not config.readers:
        return TagRegistry()  # no readers: nothing to look up
    enrol = f"rhuna-table enroll --config {config.source} (docs/enroll.md)"
    return open_registry(
        path,
        missing=f"{config.source}: registry.file: {path} does not exist yet — give every token"
        f" its tag first: {enrol}; or, with emulated readers only, [registry] synthetic = true",
        where=f"{config.source}: registry.file: ",
        fix=f"fix it, or enrol the tokens again: {enrol}",
    )


class Service:
    """The whole table, built from a config; :meth:`run` it on the main thread."""

    #: seconds the loop waits for input before doing idle work (watchdog, snapshots)
    poll = 0.2
    #: at most this often a STATUS= line while commands come in
    status_every = 5.0
    #: apply the likely next draws while the table waits (companion.table.ponder)
    pondering = True

    def __init__(
        self,
        config: Config,
        *,
        new_session: bool = False,
        carry: Iterable[str] | None = None,
        extensions: Iterable[Extension] | None = None,
        extra: Iterable[Extension] = (),
        notifier: Notifier | None = None,
        clock: Callable[[], float] = time.time,
        pin_factory: Any = None,
    ) -> None:
        """Restore the table and build every part (the wheel's pins are wired: they only
        enqueue); no thread runs until :meth:`start`.

        ``carry`` (with ``new_session``): start the new journal from where the last session
        ended, less the parts named (:mod:`companion.record.carry`, ``--carry --reset``).
        ``extensions`` replaces the configured ones (tests); ``extra`` are added to them
        (``--commands``); ``pin_factory`` overrides
        ``[gpio] pin_factory`` (tests pass a gpiozero MockFactory they can drive).
        """
        self.config = config
        self.notifier = notifier or Notifier()
        #: the extensions' standing problems (``alert``), first in each STATUS= line until cleared
        self.alerts: dict[str, str] = {}
        initial = load_table(config.table_file)
        carried = None
        if carry is not None:
            from companion.record.carry import carry_from

            carried = carry_from(config.state_dir, config.table_file, initial, carry)
        archived = None
        if new_session:
            archived = archive(config.state_dir, clock)
            if archived is not None:
                log.warning("new session: the previous journal is now %s", archived)
        d = config.display
        panel = [Path(d.options["out_dir"])] if d.driver == "png" and "out_dir" in d.options else []
        self.store = Store.open(
            config.state_dir,
            clock=clock,
            snapshot_every=config.snapshot_every,
            marks=panel,  # the panel's frames: a sign of a night, if the journal is gone
            new_session=new_session,
        )
        # the emulated hubs' port links: ours alone while the store's lock is held, so what a
        # killed service left there goes now
        self.run_dir = config.state_dir / RUN_DIR
        shutil.rmtree(self.run_dir, ignore_errors=True)
        self.readers: list[SerialReader] = []
        self.emulators: dict[str, HubEmulator] = {}
        self.worker: DisplayWorker[Frame] | None = None
        self.output: PanelOutput | None = None
        self.controls: Any = None
        self.pin_factory = pin_factory
        self.reader_states: dict[str, str] = {}
        self._started = False
        self._stopped = False
        self._unfed = False  # the watchdog withheld (said once in the log until it turns)
        self._stop = threading.Event()
        #: the signal that stopped :meth:`run` (None: ``stop`` was set, or none yet)
        self.stopped_by: int | None = None
        try:
            self.restored: Restored = self.store.restore(initial, config.table_file)
            self.registry = load_registry(config, initial)
            self.loop = TableLoop(
                self.restored.state, self.registry, config.roles, journal=self.store.append
            )
            if self.pondering:
                self.loop.ponder = Ponder()
            if carried is not None and self.restored.new:
                self._carry(carried)
            self.loop.subscribe("log", self.outcome_log)
            self._display()
            # what each well holds beside what the engine drew: unsync said until resolved
            self.board = Board(self.registry.token_id, config.roles)
            self._board_lock = threading.Lock()  # the loop's turn and the readers' notices
            self.loop.subscribe("board", self._board)
            # a bag audit: while it runs the readers' tags are its, never drawn (issue 43 item 4)
            self.audits = AuditDesk(self.registry, self._audit_report)
            self.loop.subscribe("audit", self._audit_command)
            self.extensions = (
                list(extensions)
                if extensions is not None
                else configured_extensions(self.collaborators())
            )
            self.extensions += extra
            self._first_state()
            for rc in config.readers:
                self.readers.append(self._reader(rc))
            if archived is not None and config.recap and config.recaps_dir is not None:
                self._write_recap(archived, config.recaps_dir)
            self._controls()  # wires the pins now: a pin gpiozero refuses fails the start here
        except BaseException:
            self._release()
            raise

    # --- building ----------------------------------------------------------------------

    def collaborators(self) -> Collaborators:
        """What the extensions' factories are handed: the restored table's, not the service."""
        return Collaborators(
            self.config,
            self.store.path,
            self.store.last_event_seq,
            self.loop.state,
            self.alert,
            self.board,
        )

    def _first_state(self) -> None:
        """The page server inlines the public retained topics the bridge last published in
        each page it serves, so a page paints the table before its broker answers (docs/web.md,
        "How fast a page paints"): the extensions that offer them (``first_state``) and those
        that take them (``take_first_state``), matched here, where both are known."""
        sources = [
            s for e in self.extensions if (s := getattr(e, "first_state", None)) and callable(s)
        ]
        for ext in self.extensions:
            take = getattr(ext, "take_first_state", None)
            if take is not None and sources:
                take(sources[0])

    def _write_recap(self, archived: Any, recaps: Any) -> None:
        """The session that just ended, exported to ``recaps/<session>/`` in the background
        (a long night takes seconds); the table display's link follows (docs/record.md)."""
        from companion.record.session import write_session_recap

        def work() -> None:
            d = self.config.display
            frames = (
                Path(d.options["out_dir"]) if d.driver == "png" and "out_dir" in d.options else None
            )
            try:
                info = write_session_recap(
                    archived, recaps, self.config.table_file, self.config.recap_url, frames
                )
            except Exception:  # a recap is a courtesy: it never troubles the table
                log.exception("the recap of %s could not be written", archived)
                return
            if info is None:
                return
            for ext in self.extensions:
                show = getattr(ext, "show_recap", None)
                if show is not None:
                    show(info)

        threading.Thread(target=work, name="recap", daemon=True).start()

    def _carry(self, carried: Any) -> None:
        """Journal the carried session's first commands (source ``carry``) before anything."""
        from companion.record.carry import SOURCE

        for line in carried.skipped:
            log.warning("not carried: %s", line)
        for cmd in carried.commands:
            outcome = self.loop.process(cmd, SOURCE)
            if outcome.error is not None:
                raise ConfigError(f"--carry: {cmd['cmd']}: {outcome.error}")
        log.info("carried %d command(s) into the new session", len(carried.commands))

    def _display(self) -> None:
        d = self.config.display
        if d.driver == "none":
            return
        options = {"panel": d.panel, "colour": d.colour, **d.options}
        panel = open_panel(d.driver, **options)  # a bad option stops the start, named
        if d.driver in CHILD_DRIVERS:
            # rendered and written in a child process: its CPU is never the table's wait
            self.worker = ProcessDisplayWorker(
                panel, d.driver, options, full_every=d.full_every, settle=PANEL_SETTLE
            )
        else:
            self.worker = DisplayWorker(
                panel,
                Renderer(panel.spec, panel.colour),
                full_every=d.full_every,
                settle=PANEL_SETTLE,
            )
        # a refresh past its deadline: said on the panel's banner and the status line, and
        # the service keeps running (issue 43, item 5)
        self.worker.on_health = self._panel_health
        self.output = PanelOutput(self.worker)
        self.loop.subscribe("panel", self.output)

    def _board(self, outcome: Outcome) -> None:
        """After every input (the loop's turn): the wells the engine does not account for,
        each an alert in words (the panel's banner, the status line) until resolved."""
        with self._board_lock:
            if outcome.tag is not None:
                self.board.tag(outcome.tag)
            self._board_said(outcome.state)

    def _board_said(self, state: TableState) -> None:
        """The board's unsync alerts against ``state``: new ones said, resolved ones cleared
        (``_board_lock`` held). Not while a bag audit runs: its tokens pass over the wells."""
        if self.audits.running:
            return
        now = self.board.unsync(state)
        for key in [
            k
            for k in list(self.alerts)
            if (k.startswith(BOARD_KEY) or k.startswith(CROWDED_KEY)) and k not in now
        ]:
            self.alert(key, None)
        for key, text in now.items():
            if self.alerts.get(key) != text:
                self.alert(key, text)

    def _tag_sink(self, event: TagEvent) -> None:
        """The readers' sink: a tag is play's (the loop's), or the bag audit's while one runs,
        never drawn; the board still learns what lies on each well."""
        if self.audits.take(event):
            with self._board_lock:
                self.board.tag(event)
            return
        self.loop.tag_sink(event)

    def _audit_command(self, outcome: Outcome) -> None:
        """A subscriber: an accepted ``audit_bag`` begins or ends the bag audit; any other
        accepted command takes the last audit's answer off the banner."""
        command = outcome.command
        if not isinstance(command, Mapping) or outcome.error is not None:
            return
        if command.get("cmd") == AUDIT_COMMAND:
            self.audits.command(outcome.state, command.get("bag"))
        elif "audit" in self.alerts and not self.audits.running:
            self.alert("audit", None)

    def _audit_report(self, report: dict[str, Any]) -> None:
        """The bag audit's progress and answer (any thread): the panel's banner and the status
        line (alert ``audit``), and the extensions (``audit(report)``); at its end the board is
        judged again (what the audit left on a well)."""
        if report["running"]:
            count = f"{report['seen']} of {report['expected']}"
            last = report["last"] or f"{count}: pass its tokens over a reader, one after another"
            # a token counted says its count first; anything else after the count so far
            said = last if last.startswith(f"{count}: ") else f"{count} seen: {last}"
            text = f"audit of {report['bag_name']}: {said}"
        else:
            lines = report["lines"]
            text = "; ".join(line.strip() for line in lines[:4]) + (" …" if len(lines) > 4 else "")
        self.alert("audit", text)
        if not report["running"]:
            with self._board_lock:
                self._board_said(self.loop.state)
        for ext in list(self.extensions):
            hook = getattr(ext, "audit", None)
            if hook is not None:
                try:
                    hook(report)
                except Exception:
                    log.exception("extension %r: audit failed", ext)

    def _panel_health(self, problem: str | None) -> None:
        """The display worker's timer: the panel not responding (``problem`` in words), or
        responding again (None); told to the extensions (``panel_health``)."""
        self.alert("panel", problem)
        for ext in self.extensions:
            hook = getattr(ext, "panel_health", None)
            if hook is not None:
                try:
                    hook(problem)
                except Exception:
                    log.exception("extension %r: panel_health failed", ext)

    def _reader(self, rc: ReaderConfig) -> SerialReader:
        reader, hub = open_reader(rc, self._tag_sink, self._reader_status, link_dir=self.run_dir)
        if hub is not None:
            self.emulators[rc.name] = hub
        # two tokens in one well: said, not drawn (issue 30); a PN532's NbTg 2 too (issue 43)
        if isinstance(reader, (HubReader, PN532Reader)):
            reader.on_notice = self._hub_notice
        return reader

    def _controls(self) -> None:
        gpio = self.config.gpio
        if gpio is None:
            return
        from hardware.controls import TableControls, make_pin_factory

        if self.pin_factory is None:
            self.pin_factory = make_pin_factory(gpio.pin_factory)
        loop = self.loop
        self.controls = TableControls(
            loop.submit,
            lambda: loop.state,  # an immutable value: safe to read from gpiozero's threads
            gpio,
            pin_factory=self.pin_factory,
            on_change=self.output.dial if self.output is not None else None,
        )

    # --- life cycle ---------------------------------------------------------------------

    def start(self) -> None:
        """Start the panel, the extensions, the readers and the wheel (idempotent)."""
        if self._started:
            return
        self._started = True
        # the fork server the panel's and the answers' children come from, started on the
        # thread that starts the table (the main one, in `run`): a Ctrl-C in its first instant
        # is then no traceback (display.forkserver_signals)
        try:  # the answers' module is in PRELOAD: companion.views.cache imports it
            fork_server(PRELOAD)
        except OSError as e:  # e.g. a TMPDIR too long for its socket: the children try later
            log.warning("the fork server did not start now (%s); a child will start it", e)
        # answers too big for a turn are computed off it (companion.views.answers); the outputs
        # show them when they come
        VIEWS.start_answers()
        if self.output is not None:
            VIEWS.listen(self.output.answered)
        if self.loop.ponder is not None:
            self.loop.ponder.start()
        if self.worker is not None and self.output is not None:
            self.worker.start()
            self.output.show(self.loop.state)
        for ext in list(self.extensions):
            try:
                ext.start(self.loop)
            except Exception:  # a broken output must not stop the table
                log.exception("extension %r did not start; the table runs without it", ext)
                self.extensions.remove(ext)
        # last: the snapshot request comes after every output has the outcome
        self.loop.subscribe("journal", self._snapshot_if_due)
        for hub in self.emulators.values():
            hub.start()
        for reader in self.readers:
            reader.start()

    def run(self, stop: threading.Event | None = None) -> int:
        """Start, then run the loop until ``stop`` is set (or SIGTERM / SIGINT on the main
        thread); stop cleanly. Returns the exit status: 0, or 130 (128 + SIGINT, as a shell
        reports it) when Ctrl-C stopped it — cleanly too."""
        if stop is not None:
            self._stop = stop
        previous = self._catch_signals()
        switch = sys.getswitchinterval()
        sys.setswitchinterval(min(switch, SWITCH_INTERVAL))
        try:
            self.start()
            # what the start made lives as long as the service: out of the collector's sight,
            # a full collection is a few objects, not the whole heap — the pondered states'
            # garbage otherwise brings one every few draws, 27 ms here (docs/service.md)
            gc.collect()
            gc.freeze()
            self.notifier.ready(self.status_line())
            log.info("ready: %s", self.status_line())
            self._serve()
        finally:
            self.stop()
            gc.unfreeze()
            sys.setswitchinterval(switch)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return 128 + signal.SIGINT if self.stopped_by == signal.SIGINT else 0

    def _serve(self) -> None:
        interval = self.notifier.watchdog_interval
        next_ping = time.monotonic()
        next_status = time.monotonic() + self.status_every
        status_seq = self.store.seq
        # from now on an input that finds the loop idle is processed on its own thread
        self.loop.inline = True
        while not self._stop.is_set():
            now = time.monotonic()
            if interval is not None and now >= next_ping:
                # from the loop's own thread, and only while no turn is stuck on another
                # (an input processed where it was submitted): a wedged loop stops the pings
                if self._turning(interval):
                    self.notifier.watchdog()
                next_ping = now + interval
            timeout = self.poll if interval is None else max(0.0, min(self.poll, next_ping - now))
            outcome = self.loop.step(timeout)
            if self.store.snapshot_due:  # seconds passed since the last command was asked for
                with self.loop.turn():  # no command half-committed: state and seq agree
                    self._snapshot_if_due()
            if self.loop.pending:
                continue
            if outcome is None and self.store.seq != status_seq and now >= next_status:
                self.notifier.status(self.status_line())
                status_seq, next_status = self.store.seq, now + self.status_every

    def _turning(self, interval: float) -> bool:
        """Whether the table really turns: no turn stuck on any thread, and no output (the MQTT
        publisher) stuck on one item, for ``interval`` seconds. Else the watchdog goes
        unfed, once said in the log, and systemd restarts the service."""
        stuck = [("the table's turn", self.loop.busy_for())]
        for ext in self.extensions:
            busy_for = getattr(ext, "busy_for", None)
            if callable(busy_for):
                stuck.append((type(ext).__name__, busy_for()))
        late = [(who, s) for who, s in stuck if s >= interval]
        if late and not self._unfed:
            who, seconds = late[0]
            log.error("watchdog not fed: %s has been stuck for %.1f s", who, seconds)
        self._unfed = bool(late)
        return not late

    def stop(self) -> None:
        """Stop inputs, drain the queue, stop extensions, snapshot, close the store, flush the
        panel. Safe to call twice."""
        if self._stopped:
            return
        self._stopped = True
        self.loop.inline = False  # what comes now waits for the drain below
        self.notifier.stopping(f"stopping at #{self.store.seq}")
        if self.controls is not None:
            self.controls.close()
            self.controls = None
        for reader in self.readers:
            reader.stop()
        for hub in self.emulators.values():
            hub.stop()
        drained = 0
        while drained < 10_000 and self.loop.step(timeout=0) is not None:
            drained += 1
        for ext in reversed(self.extensions):
            try:
                ext.stop()
            except Exception:
                log.exception("extension %r did not stop cleanly", ext)
        if self.loop.ponder is not None:
            self.loop.ponder.stop()
        if self.output is not None:
            VIEWS.unlisten(self.output.answered)
        VIEWS.stop_answers()
        with self.loop.turn():  # an input processed on its own thread has finished
            self.store.snapshot(self.loop.state)
        self._release()
        log.info("stopped at #%d", self.store.seq)

    def _release(self) -> None:
        if self.controls is not None:
            self.controls.close()
            self.controls = None
        self.store.close()
        for hub in self.emulators.values():
            hub.stop()  # again after stop(): it also removes the emulator's pty folder
        if self.worker is not None:
            self.worker.stop(flush=True)
        if self.pin_factory is not None and self.config.gpio is not None:
            with contextlib.suppress(Exception):
                self.pin_factory.close()
        self.notifier.close()

    def _catch_signals(self) -> dict[int, Any]:
        if threading.current_thread() is not threading.main_thread():
            return {}

        def handle(signum: int, frame: FrameType | None) -> None:
            log.info("%s: stopping", signal.Signals(signum).name)
            self.stopped_by = signum
            self._stop.set()

        return {sig: signal.signal(sig, handle) for sig in (signal.SIGTERM, signal.SIGINT)}

    # --- status ---------------------------------------------------------------------------

    def _reader_status(self, status: ReaderStatus) -> None:
        """A reader's link changed (the reader's thread): panel banner, extensions, systemd."""
        self.reader_states[status.reader] = status.state
        if self.output is not None:
            self.output.reader_status(status)
        for ext in self.extensions:
            hook = getattr(ext, "reader_status", None)
            if hook is not None:
                try:
                    hook(status)
                except Exception:
                    log.exception("extension %r: reader_status failed", ext)
        if status.state != "connecting":
            self.notifier.status(self.status_line())

    def _hub_notice(self, notice: HubNotice) -> None:
        """A hub's "one token per well" (the reader's thread): the board holds two or more
        tags on that well, said until the extra token is lifted, and told to the extensions
        (``hub_notice``); the drawn token stays drawn. A hub's "reads poorly" (a tag read now
        and then, never counted) is the board's unsync for that well the same way."""
        where = f"{notice.reader} channel {notice.channel}"
        poorly = notice.kind == READS_POORLY
        with self._board_lock:
            if poorly:
                self.board.reads_poorly(notice.reader, notice.channel, notice.uid, notice.active)
            else:
                self.board.crowd(notice.reader, notice.channel, notice.active)
            self._board_said(self.loop.state)
        again = "read steadily again, or gone" if poorly else "one token again"
        log.warning("%s: %s", where, notice.detail if notice.active else again)
        for ext in self.extensions:
            hook = getattr(ext, "hub_notice", None)
            if hook is not None:
                try:
                    hook(notice)
                except Exception:
                    log.exception("extension %r: hub_notice failed", ext)

    def alert(self, key: str, text: str | None) -> None:
        """A standing problem for the table to see (an unsync well, the panel not responding,
        a second service on the same table id): on the panel until cleared (``text`` None),
        in ``systemctl status``, and told to the extensions (``alert(key, text)``, any
        thread: a hook must not wait, nor call this back for the same key)."""
        if self.output is not None:
            self.output.alert(key, text)
        if text is not None:
            self.alerts[key] = text
            self.notifier.status(text)
        elif self.alerts.pop(key, None) is not None:
            self.notifier.status(self.status_line())
        else:
            return  # nothing was standing: nothing to tell
        for ext in list(getattr(self, "extensions", ())):
            hook = getattr(ext, "alert", None)
            if hook is not None:
                try:
                    hook(key, text)
                except Exception:
                    log.exception("extension %r: alert failed", ext)

    def status_line(self) -> str:
        """One line for ``systemctl status``: the table, the journal, the readers."""
        r = self.restored
        state = self.loop.state
        readers = ", ".join(f"{n} {s}" for n, s in list(self.reader_states.items())) or (
            "no readers" if not self.readers else "readers starting"
        )
        alerts = "".join(f"{text}; " for text in list(self.alerts.values()))
        return alerts + (
            f"table {state.table_id!r}: #{self.store.seq} commands"
            f" (restored at #{r.seq}: snapshot #{r.snapshot_seq} + {r.replayed} replayed);"
            f" {readers}"
        )

    def _snapshot_if_due(self, outcome: Outcome | None = None) -> None:
        """A subscriber (so in the loop's turn, whichever thread processed the outcome): every
        ``snapshot_every`` commands or ``snapshot_seconds``, even under continuous input, hand
        the state to the store's snapshot thread (never waits)."""
        if self.store.snapshot_due:
            self.store.request_snapshot(self.loop.state)

    def outcome_log(self, outcome: Outcome) -> None:
        """A subscriber: accepted commands to the debug log (the loop logs refusals), and a
        journal that cannot write to ``systemctl status``."""
        if outcome.error is not None and outcome.error.code == "store":
            self.notifier.status(f"the journal cannot be written: {outcome.error.message}")
        elif (
            outcome.command is not None
            and outcome.error is None
            and log.isEnabledFor(logging.DEBUG)
        ):
            # the command's JSON only when it is logged: every turn runs this
            log.debug("#%s %s: %s", outcome.seq, outcome.source, as_json(outcome.command))
