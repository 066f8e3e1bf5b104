/**
 * The overlay's one roll card, in the lower third (issue 42 items 1 and 2), as the dddice and
 * Pixels overlays show a roll: the open Performance as a row of tiles (a hero alone, or an
 * Intersect group and its heroes), each group with one chance meter that swings on each draw.
 *
 * - **What fits, and a summary of the rest**: the card has `CARD_SLOTS` tiles; with more, the
 *   first heroes keep theirs and the others are named on one "+3 more" tile, never pushed out
 *   of the frame (`fit`).
 * - **The odds as drama**: the meter's headline is the best play's chance, in whole percent as
 *   the engine writes it in its advice (`→ 56%`); under 20 % it says *long shot*; under it the
 *   engine's best move in one plain sentence. The exact figures (56.09 %, as drawn) stay on
 *   the table display and the remote. Nothing is computed here: the figures are the service's.
 * - **Switches**: the WorldKeeper's on gm.html (`…/overlay`, ./onair.ts: the card on or off,
 *   the outcome that is up held or skipped), and the overlay's URL, which wins for that
 *   overlay: `card=off` hides the card, `alerts=skip` leaves the outcomes off it (the alert
 *   queue still takes each one, in order, and still sends its `rhuna:outcome` event for a
 *   stream tool; alerts.ts never drops one unless the WorldKeeper skips it).
 */

import { h, setText } from "./dom";
import type { ContributionView, GroupView, OddsView, PerformanceView } from "./model";
import type { UrlSwitches } from "./onair";
import { wholePercent } from "./store";

/** tiles in the card: a "+3 more" tile takes the last one when the heroes do not fit */
export const CARD_SLOTS = 4;
/** … in a side column (`layout=narrow`) */
export const CARD_SLOTS_NARROW = 2;
/** below this best-play percent a meter says "long shot" (as the wall features one) */
export const LONG_SHOT_PERCENT = 20;

/** The overlay's own switches, from its URL (`?card=off&alerts=skip`): null where the URL
 *  gives none (or a bad value), so the WorldKeeper's (`…/overlay`, ./onair.ts) apply there.
 *  `card`: "on", shown while there is a Performance or an outcome (invisible when idle);
 *  "off", never. `alerts`: "hold", each outcome goes up for its time (alerts.ts), whatever the
 *  WorldKeeper's Hold and Skip say; "skip", none goes up (the queue and its events go on). */
export function readSwitches(q: URLSearchParams): UrlSwitches {
  const card = q.get("card");
  const alerts = q.get("alerts");
  return {
    card: card === "on" || card === "off" ? card : null,
    alerts: alerts === "hold" || alerts === "skip" ? alerts : null,
  };
}

/** One unit of the card: a hero alone, or an Intersect group with its heroes (one meter). */
export interface Unit {
  heroes: ContributionView[];
  group: GroupView | null;
}

function units(p: PerformanceView): Unit[] {
  const out: Unit[] = [];
  const done = new Set<string>();
  for (const c of p.contributions) {
    const g = p.groups.find((x) => x.key === c.group) ?? null;
    if (!g) out.push({ heroes: [c], group: null });
    else if (!done.has(g.key)) {
      done.add(g.key);
      out.push({ heroes: p.contributions.filter((m) => m.group === g.key), group: g });
    }
  }
  return out;
}

/** the tiles a unit takes: a hero's own; an Intersect group's heroes and the group's total */
const tiles = (u: Unit): number => u.heroes.length + (u.group ? 1 : 0);

/**
 * The Performance as the card shows it: the first units that fit in `slots` tiles (one kept
 * for the "+N more" tile when some do not), and the names of the heroes left out. At least
 * the first unit is shown whatever its size. The odds are taken off: the card shows its
 * meters instead (`renderMeters`), never the exact figures.
 */
export function fit(
  p: PerformanceView,
  slots: number,
): { shown: PerformanceView; more: string[]; units: Unit[] } {
  const all = units(p);
  const total = all.reduce((n, u) => n + tiles(u), 0);
  const kept: Unit[] = [];
  if (total <= slots) kept.push(...all);
  else {
    let used = 0;
    for (const u of all) {
      if (kept.length && used + tiles(u) > slots - 1) break;
      kept.push(u);
      used += tiles(u);
    }
  }
  const heroes = new Set(kept.flatMap((u) => u.heroes.map((c) => c.hero)));
  const groups = new Set(kept.flatMap((u) => (u.group ? [u.group.key] : [])));
  return {
    shown: {
      ...p,
      contributions: p.contributions.filter((c) => heroes.has(c.hero)),
      groups: p.groups.filter((g) => groups.has(g.key)),
      odds: [],
    },
    more: p.contributions.filter((c) => !heroes.has(c.hero)).map((c) => c.heroName),
    units: kept,
  };
}

/** The engine's own whole percent for the best play: the tail of its best advice ("… → 56%",
 *  engine/performance/odds.py `percent_text`), else the published figure as it is. */
export function headline(o: OddsView): string {
  return wholePercent(o.advice[0], o.bestPlay);
}

/** The engine's best advice as one plain sentence: its move, without the figure (the
 *  headline says it) nor the plan after it (", then Redraw while short": on the remote):
 *  "Best move: Redraw Ember of Skill."; null when it gave none. */
export function adviceSentence(o: OddsView): string | null {
  const first = o.advice[0];
  if (!first) return null;
  const move = first
    .replace(/\s*→\s*\S+%\s*$/, "")
    .split(", then ")[0]
    ?.trim();
  return move ? `Best move: ${move}.` : null;
}

/** Each unit's odds: the service's group of the same heroes (named as the model names them). */
function oddsOf(p: PerformanceView, u: Unit): OddsView | null {
  const names = u.group ? u.group.names : (u.heroes[0]?.heroName ?? "");
  return p.odds.find((o) => o.heroes === names) ?? null;
}

function meterEl(): HTMLElement {
  return h(
    "div",
    { class: "meter" },
    h("span", { class: "meter-headline" }),
    h(
      "div",
      { class: "meter-line" },
      h("div", { class: "meter-bar", "aria-hidden": "true" }, h("div", { class: "meter-fill" })),
      h("span", { class: "long-shot", hidden: true }, "long shot"),
    ),
    h("p", { class: "advice" }),
  );
}

function sub(root: Element, selector: string): HTMLElement | null {
  const el = root.querySelector(selector);
  return el instanceof HTMLElement ? el : null;
}

/**
 * After `renderPerformance` painted `fit`'s Performance into `section`: each unit's chance
 * meter (on the hero's tile, or on the Intersect group's), and the "+N more" tile. `full` is
 * the whole Performance, with its odds. The fill's width follows the headline figure, so it
 * swings (a CSS transition) on each draw that moves it.
 */
export function renderMeters(
  section: HTMLElement,
  full: PerformanceView,
  fitted: { units: Unit[]; more: string[] },
  animate: boolean,
): void {
  const rows = sub(section, ".contributions");
  if (!rows) return;
  const current = new Set<HTMLElement>();
  for (const u of fitted.units) {
    const tile = u.group
      ? sub(rows, `.group-total[data-group="${CSS.escape(u.group.key)}"]`)
      : sub(rows, `.contribution[data-hero="${CSS.escape(u.heroes[0]?.hero ?? "")}"]`);
    if (!tile) continue;
    const o = full.resolved ? null : oddsOf(full, u);
    let meter = sub(tile, ":scope > .meter");
    if (!o) {
      meter?.remove();
      continue;
    }
    if (!meter) {
      meter = meterEl();
      tile.append(meter);
    }
    current.add(meter);
    const long = o.bestPlay < LONG_SHOT_PERCENT;
    const was = Number(meter.dataset.percent ?? o.bestPlay);
    meter.dataset.percent = String(o.bestPlay);
    meter.dataset.level = long ? "long" : o.bestPlay < 50 ? "even" : "likely";
    if (was !== o.bestPlay) meter.dataset.swing = o.bestPlay > was ? "up" : "down";
    const head = sub(meter, ".meter-headline");
    if (head) setText(head, headline(o), animate);
    const fill = sub(meter, ".meter-fill");
    if (fill) fill.style.width = `${Math.min(100, Math.max(0, o.bestPlay))}%`;
    const tag = sub(meter, ".long-shot");
    if (tag) tag.hidden = !long;
    const advice = sub(meter, ".advice");
    if (advice) {
      const sentence = adviceSentence(o);
      setText(advice, sentence ?? "", false);
      advice.hidden = sentence === null;
    }
  }
  // a meter on a tile that is no longer a unit of its own (Bren's, once Aria Intersects with
  // him) would show the last state's figure as current: it goes
  for (const stale of rows.querySelectorAll<HTMLElement>(".meter")) {
    if (!current.has(stale)) stale.remove();
  }
  let more = sub(rows, ":scope > .more");
  if (!fitted.more.length) {
    more?.remove();
    return;
  }
  if (!more) {
    more = h(
      "div",
      { class: "more" },
      h("span", { class: "more-count" }),
      h("p", { class: "more-names" }),
    );
  }
  if (rows.lastElementChild !== more) rows.append(more); // always the last tile
  const count = sub(more, ".more-count");
  if (count) setText(count, `+${fitted.more.length} more`, false);
  const names = sub(more, ".more-names");
  if (names) setText(names, fitted.more.join(" · "), false);
}
