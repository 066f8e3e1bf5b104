/**
 * director.html: the venue's stream feed, an OBS browser source (1920×1080 design, scaled to
 * the viewport like the overlay). It follows every table at the venue broker (docs/convention.md)
 * and features one at a time: the most improbable live moment — the open Performance whose
 * best-play odds, as the tables' services published them, are the lowest (the page computes no
 * rule, it only compares the published figures) — held at least `hold=` seconds (10, at least
 * 8) so viewers can read it, and through its outcome when it resolves while featured. When no
 * table has a live moment it rotates through the tables (`rotate=` seconds, 15).
 *
 * A page of its own rather than an overlay mode: it subscribes to every table (`rhuna/+/state`,
 * with the director's login) where the overlay follows one, and it decides what is on air.
 */

import { AlertQueue, dispatchOutcome } from "../alerts";
import { boot } from "../app";
import { byId, setText } from "../dom";
import * as model from "../model";
import { urlParams } from "../params";
import { loadRoster } from "../roster";
import type { Snapshot } from "../store";
import { renderCombat, renderHeroes, renderPerformance, renderTime } from "../views";

/** A live moment: an open Performance at a live table, with its published best-play odds. */
export interface Moment {
  table: string;
  performance: number;
  /** the lowest best-play figure of its groups (percent, as published) */
  percent: number;
  heroes: string;
}

export type Reason = "live" | "outcome" | "rotation" | "none";

export interface Feature {
  table: string | null;
  reason: Reason;
  /** when this feature went on air (ms since the epoch) */
  since: number;
  moment: Moment | null;
}

/** The shortest a feature is held on air (ms): long enough to read it. */
export const MIN_HOLD_MS = 8000;

/** Every live moment, the most improbable first (ties by table id, so walls agree). A figure of
 * 0 % or 100 % is no moment: nothing can change it. */
export function liveMoments(snap: Snapshot, now: number): Moment[] {
  const out: Moment[] = [];
  for (const t of snap.tables.values()) {
    if (model.liveness(snap, t, now).state !== "live") continue;
    const p = model.performance(t);
    if (!p || p.resolved || p.odds.length === 0) continue;
    const best = p.odds.reduce((a, o) => (o.bestPlay < a.bestPlay ? o : a));
    if (!(best.bestPlay > 0 && best.bestPlay < 100)) continue;
    out.push({ table: t.id, performance: p.number, percent: best.bestPlay, heroes: best.heroes });
  }
  return out.sort((a, b) => a.percent - b.percent || a.table.localeCompare(b.table));
}

/** What is on air, feature by feature (see the module's comment). */
export class Director {
  private cur: Feature = { table: null, reason: "none", since: 0, moment: null };

  constructor(
    private readonly holdMs = 10_000,
    private readonly rotateMs = 15_000,
  ) {}

  /** `order`: the tables a rotation goes through, in order. */
  next(snap: Snapshot, now: number, order: readonly string[]): Feature {
    const moments = liveMoments(snap, now);
    const best = moments[0] ?? null;
    const cur = this.cur;
    const mine = moments.find((m) => m.table === cur.table) ?? null;
    if (cur.table !== null && cur.reason === "live") {
      const t = snap.tables.get(cur.table);
      const p = t ? t.sections.performance : null;
      if (mine)
        this.cur = { ...cur, moment: mine }; // its odds moved: still the same moment
      else if (p?.resolved && p.number === cur.moment?.performance)
        // its outcome landed while on air: show it, a whole hold from now
        this.cur = { ...cur, reason: "outcome", since: now };
    }
    const shown = this.cur;
    if (shown.table !== null && now - shown.since < this.holdMs) return shown;
    if (best) {
      // keep the one on air while nothing is more improbable than it
      if (shown.reason === "live" && mine && mine.percent <= best.percent) return shown;
      this.cur = { table: best.table, reason: "live", since: now, moment: best };
      return this.cur;
    }
    if (order.length === 0) {
      this.cur = { table: null, reason: "none", since: now, moment: null };
      return this.cur;
    }
    if (shown.reason === "rotation" && shown.table !== null && order.includes(shown.table)) {
      if (now - shown.since < this.rotateMs) return shown;
    }
    const i = shown.table === null ? -1 : order.indexOf(shown.table);
    const table = order[(i + 1) % order.length] ?? null;
    this.cur = { table, reason: "rotation", since: now, moment: null };
    return this.cur;
  }
}

function seconds(raw: string | null, fallback: number, min: number): number {
  const n = raw === null || raw.trim() === "" ? fallback : Number(raw);
  return Number.isFinite(n) ? Math.max(min, n) * 1000 : fallback * 1000;
}

const q = urlParams(location);
const holdMs = seconds(q.get("hold"), 10, MIN_HOLD_MS / 1000);
const director = new Director(holdMs, Math.max(holdMs, seconds(q.get("rotate"), 15, 1)));
const roster = loadRoster(q.get("roster"));
let onAir: string | null = null;
const queue = () => new AlertQueue((o, n) => dispatchOutcome("director", onAir ?? "", o, n));
let outcomes = queue();

declare global {
  interface Window {
    /** for tests and benchmarks: what the director page has on air */
    rhunaDirector?: Feature;
  }
}

boot({
  name: "director",
  defaults: { table: "+", theme: "stream" },
  // every table's whole state in one message (its Performance and odds always of one state)
  connection: {
    table: "+",
    sections: ["state"],
    heroes: true,
    events: true,
    errors: false,
    uplinks: true,
  },
  paintEveryMs: 100, // every table's messages: one paint per 100 ms is plenty on air
  render(snap, ctx, now) {
    // the venue's roster's name, else the one the table's service publishes (…/info), else the id
    const name = (id: string) => roster.tables?.get(id) ?? snap.tables.get(id)?.name ?? id;
    const live = [...snap.tables.values()]
      .filter((t) => model.liveness(snap, t, now).state === "live")
      .map((t) => t.id)
      .sort();
    const everyone = [...new Set([...(roster.tables?.keys() ?? []), ...snap.tables.keys()])].sort();
    const order = live.length ? live : everyone;
    const f = director.next(snap, now, order);
    window.rhunaDirector = f;
    const root = document.documentElement;
    root.dataset.featured = f.table ?? "";
    root.dataset.reason = f.reason;

    const status = byId("status");
    const online = snap.link === "online";
    status.dataset.state = online ? "live" : "offline";
    setText(
      byId("status-label"),
      online
        ? `${live.length} of ${everyone.length} table${everyone.length === 1 ? "" : "s"} live`
        : (roster.problem ?? model.liveness(snap, undefined, now).label),
      false,
    );

    const t = f.table === null ? undefined : snap.tables.get(f.table);
    const switched = f.table !== onAir;
    if (switched) {
      // a new table on air: its panels are painted afresh, not animated from the last one's
      onAir = f.table;
      outcomes = queue();
      if (t) {
        // what it resolved before it was on air is not news; what its table still holds is
        const current = new Set(model.performance(t)?.outcomes.map((o) => o.key) ?? []);
        outcomes.pass(model.outcomesSeen(t).filter((o) => !current.has(o.key)));
      }
      for (const id of ["performance", "heroes", "time", "combat"]) byId(id).replaceChildren();
    }
    const tableLive = t ? model.liveness(snap, t, now) : null;
    setText(
      byId("feature-table"),
      f.table === null ? "Waiting for the tables…" : name(f.table),
      false,
    );
    let why = "";
    if (f.reason === "live" && f.moment)
      why = `Live · ${f.moment.heroes} · best play ${f.moment.percent}% — the longest shot in the hall`;
    else if (f.reason === "outcome") why = "Just resolved";
    else if (f.reason === "rotation")
      why =
        `Around the tables · ${order.indexOf(f.table ?? "") + 1} of ${order.length}` +
        (tableLive && tableLive.state !== "live" ? ` · ${tableLive.label}` : "");
    else why = roster.problem ?? "No table has said anything yet";
    setText(byId("feature-why"), why, false);
    byId("feature").dataset.reason = f.reason;

    const animate = ctx.motion() && !switched;
    renderPerformance(
      byId("performance"),
      t ? model.performance(t) : null,
      animate,
      f.table === null ? null : "No Performance open at this table",
      (all) => outcomes.next(model.outcomesSeen(t), all, now),
    );
    renderHeroes(byId("heroes"), t ? model.heroes(t) : []);
    renderTime(byId("time"), t ? model.time(t) : null, false);
    renderCombat(byId("combat"), t ? model.combat(t) : null);
  },
});
