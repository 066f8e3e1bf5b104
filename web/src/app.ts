/**
 * What every page does first: read the URL, set theme and scale, connect the one store, keep
 * the status line honest (link, table status, age, gaps), announce events, and repaint.
 */

import { Connection, type ConnectionOptions } from "./connection";
import { byId, h, setText } from "./dom";
import { ageText, announcement, type Liveness, lastChange, liveness, type Reader } from "./model";
import { type PageParams, readParams, type Theme, takeLogin } from "./params";
import { type Snapshot, Store, type TableRecord } from "./store";

export interface PageContext {
  params: PageParams;
  store: Store;
  connection: Connection;
  /** animations allowed (the URL's `motion` and the system's `prefers-reduced-motion`) */
  motion: () => boolean;
}

export interface PageSpec {
  name: string;
  defaults: { table: string; theme: Theme };
  connection?: Partial<ConnectionOptions>;
  /** who reads the page (the audiences it may show, issue 31 item 2); default worldkeeper */
  reader?: Reader;
  /** paint the page from a snapshot (called after the reveal delay, if any) */
  render: (snap: Snapshot, ctx: PageContext, now: number) => void;
  /** at most one paint per this many ms, the newest snapshot last (a wall of a hundred
   *  tables gets a message every few ms, each would repaint every card); default 0: each */
  paintEveryMs?: number;
}

declare global {
  interface Window {
    /** for tests and benchmarks: the page's store and when it last painted */
    rhuna?: { store: Store; connection: Connection; painted: number; paints: number };
  }
}

export function boot(spec: PageSpec): PageContext {
  performance.mark("rhuna:boot");
  // the login first: out of the address bar before anything can show or send the address
  const params = readParams(location, spec.defaults, takeLogin());
  const root = document.documentElement;
  root.dataset.page = spec.name;
  root.dataset.theme = params.theme;
  root.dataset.layout = params.layout;
  root.style.setProperty("--scale", String(params.scale));
  const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
  const motion = () => params.motion && !reduced.matches;
  root.dataset.motion = motion() ? "on" : "off";
  reduced.addEventListener("change", () => {
    root.dataset.motion = motion() ? "on" : "off";
  });
  if (params.panels) root.dataset.panels = params.panels.join(" ");
  root.dataset.status = params.status ? "on" : "off";

  const store = new Store();
  const connection = new Connection(store, {
    url: params.broker,
    brokerGiven: params.brokerGiven,
    base: params.base,
    table: params.table,
    username: params.username,
    password: params.password,
    ...spec.connection,
  });
  const ctx: PageContext = { params, store, connection, motion };
  const debug = { store, connection, painted: 0, paints: 0 };
  window.rhuna = debug;

  let painted: Snapshot | null = null;
  const paint = (snap: Snapshot) => {
    painted = snap;
    spec.render(snap, ctx, Date.now());
    debug.painted = performance.now();
    debug.paints += 1;
  };
  const announcer = document.getElementById("announce");
  const spoken = new Map<string, number>();
  const reader = spec.reader ?? "worldkeeper";
  // a page that paints at most every `paintEveryMs`: a change within it is painted at its end,
  // and its announcements are made then too, together (each once: `spoken` keeps the seqs)
  const every = spec.paintEveryMs ?? 0;
  let lastPaint = Number.NEGATIVE_INFINITY;
  let trailing: ReturnType<typeof setTimeout> | null = null;
  let newest: Snapshot = store.snapshot;
  const paintThrottled = (snap: Snapshot) => {
    lastPaint = performance.now();
    if (announcer) announce(announcer, snap, spoken, reader);
    paint(snap);
  };
  const paintSoon = (snap: Snapshot) => {
    if (every <= 0) return paint(snap);
    newest = snap;
    const wait = lastPaint + every - performance.now();
    if (wait <= 0 && trailing === null) paintThrottled(snap);
    else if (trailing === null) {
      trailing = setTimeout(() => {
        trailing = null;
        paintThrottled(newest);
      }, wait);
    }
  };
  // with a reveal delay, what the page shows is the snapshot revealed last, not the newest
  let revealed = store.snapshot;
  store.subscribe((snap) => {
    if (snap === painted && params.delay <= 0) return; // the inlined state, painted at boot
    if (announcer && every <= 0) announce(announcer, snap, spoken, reader);
    if (params.delay > 0)
      setTimeout(() => {
        revealed = snap;
        paintSoon(snap);
      }, params.delay);
    else paintSoon(snap);
  });
  // the age of the last update, the link and a refusal's time must move even when nothing
  // arrives (a delayed page repaints what it has revealed)
  setInterval(() => paint(params.delay > 0 ? revealed : store.snapshot), 1000);
  // the table's state the page server inlined, if any (connection.ts), in the first paint: the
  // table shows before the broker answers; a reveal delay holds it back like the broker's
  const inlined = params.delay <= 0 && connection.takeInlined();
  paint(store.snapshot);
  // painted from the inlined state: let the browser show it before MQTT.js sets up its client
  if (inlined) setTimeout(() => connection.start(), 0);
  else connection.start();
  return ctx;
}

/** Speak each new draw and outcome once, in the service's own words (aria-live="polite"). */
function announce(
  region: HTMLElement,
  snap: Snapshot,
  spoken: Map<string, number>,
  reader: Reader,
): void {
  for (const [id, t] of snap.tables) {
    const last = spoken.get(id) ?? -1;
    const fresh = t.events.filter((e) => e.seq > last);
    if (!fresh.length) continue;
    spoken.set(id, Math.max(...fresh.map((e) => e.seq)));
    if (last < 0 && fresh.length > 1) continue; // the page just opened: no backlog
    for (const e of fresh) {
      const text = announcement(e, reader);
      if (text) region.append(h("p", {}, text));
    }
    while (region.childElementCount > 5) region.firstElementChild?.remove();
  }
}

/** How long a new non-live state must hold before the status line says it (ms): a broker
 * outage alternates "offline" and "connecting…" each reconnect attempt, and the line must
 * show one steady state, not a flip every second. Good news (live) is said at once. */
export const STATUS_HOLD_MS = 2500;

/**
 * The status line's words, steadied: once the link has failed, "connecting…" (a retry) reads
 * as the offline state it still is, and a new non-live state shows only once it has held for
 * STATUS_HOLD_MS.
 */
export class SteadyStatus {
  private shown: Liveness | null = null;
  private candidate: { live: Liveness; since: number } | null = null;
  /** what the line said when the link last failed: a retry ("connecting…") still reads so */
  private failed: Liveness | null = null;

  next(
    snap: Snapshot,
    t: TableRecord | undefined,
    now: number,
    id: string | null = null,
  ): Liveness {
    let live = liveness(snap, t, now, id);
    if (snap.link === "online") this.failed = null;
    else if (snap.link === "offline") this.failed = live;
    else if (this.failed) live = { ...this.failed, age: live.age, gap: live.gap };
    // good news, the first word, and leaving "live" are said at once (never stale as live)
    const now_ =
      !this.shown ||
      live.state === "live" ||
      this.shown.state === "live" ||
      (this.shown.state === "waiting" && live.state === "waiting");
    if (now_ || live.label === this.shown?.label) {
      this.shown = live;
      this.candidate = null;
      return live;
    }
    if (!this.candidate || this.candidate.live.label !== live.label)
      this.candidate = { live, since: now };
    if (now - this.candidate.since >= STATUS_HOLD_MS) {
      this.shown = live;
      this.candidate = null;
      return live;
    }
    const shown = this.shown as Liveness;
    return { ...shown, age: live.age, gap: live.gap };
  }
}

const steady = new SteadyStatus();

/** HH:MM in the browser's own time zone. */
const clock = new Intl.DateTimeFormat(undefined, {
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

/**
 * After a disconnect: "offline since HH:MM · last change HH:MM" — when this page saw the table
 * go from live to offline (its link, or the service's status), and the last change it saw
 * happen. A page that opened offline does not know since when, and says only what it knows.
 */
export class OfflineClock {
  private since: number | null = null;
  private wasLive = false;

  text(live: Liveness, lastChange: number | null, now: number): string | null {
    if (live.state === "live") {
      this.since = null;
      this.wasLive = true;
      return null;
    }
    if (live.state !== "offline") return null;
    if (this.since === null && this.wasLive) this.since = now;
    const since = this.since === null ? "offline" : `offline since ${clock.format(this.since)}`;
    const last = lastChange === null ? "no change seen" : `last change ${clock.format(lastChange)}`;
    return `${since} · ${last}`;
  }
}

const offline = new OfflineClock();

/** The status line every page has: live/offline, age of the last update, missed events. */
export function renderStatus(snap: Snapshot, table: string, now: number): void {
  const t = snap.tables.get(table);
  const live = steady.next(snap, t, now, table);
  const el = byId("status");
  el.dataset.state = live.state;
  // the label and the gap are live regions: rewritten every second, they would be re-announced
  setText(byId("status-label"), live.label, false);
  byId("status-age").textContent = offline.text(live, lastChange(t), now) ?? ageText(live.age);
  const gap = byId("status-gap");
  setText(gap, live.gap ? `⚠ ${live.gap}` : "", false);
  gap.hidden = live.gap === null;
  document.body.dataset.live = live.state;
}
