/**
 * What the pages show, read out of the store's records: the one module that reads payload keys.
 *
 * Every number here is one the service published (totals, odds, advice, outcomes, narration);
 * this module only picks and labels them, it never computes a rule. When the service's JSON
 * Schemas arrive (issue 18) the payload types change and this file is what `tsc` points at.
 */

import type {
  AnswerStatus,
  BoardAlert,
  Contribution,
  DrawnToken,
  EventMessage,
  Hero,
  OddsGroup,
  Performance,
} from "./payloads";
import { type OutcomeSeen, oddsKey, type Snapshot, type TableRecord } from "./store";

/** A token's kind: the contract's closed list (engine/contracts/terms.py, TokenKindName), a
 *  union from docs/state.schema.json's enum, so a new kind is a `tsc` error in each reader
 *  that must learn it (tokenart.ts). */
export type TokenKind = DrawnToken["kind"];

export interface TokenView {
  id: string;
  name: string;
  /** ember, potential, weight, strain, favor, time, weather, temporary (its art) */
  kind: TokenKind;
  /** an Ember's Shade, a Favor token's relation (its colour) */
  shade: string | null;
  weight: number | null;
  value: number;
  favor: boolean;
}

export interface ContributionView {
  hero: string;
  heroName: string;
  /** "Skill · Control · Target · Adept" */
  declaration: string;
  tokens: TokenView[];
  /** the ids of the tokens a Redraw set aside (the performance's `set_aside`) */
  setAside: string[];
  exert: boolean;
  /** the hero's own total (their tokens alone) */
  total: number;
  /** the total of the hero's resolving group against the Difficulty, the engine's answer
   *  (`group_total`, I-P10/P19): an Intersect group's sum, else the hero's own total */
  groupTotal: number;
  /** the key of the Intersect group the hero resolves in (a GroupView's), null: alone */
  group: string | null;
  drawsLeft: number;
  allowed: number;
}

/** An Intersect group (I-P10): its heroes resolve together, one total against the Difficulty. */
export interface GroupView {
  /** the heroes' ids joined with "+" (the group's key) */
  key: string;
  heroes: string[];
  /** "Bren + Dara" */
  names: string;
  /** the engine's `group_total`, set once against the Difficulty (never added up here) */
  total: number;
  /** each hero's own total, their share of it */
  shares: { hero: string; name: string; total: number }[];
}

export interface OutcomeView {
  /** which Performance and group (the alert queue's key) */
  key: string;
  performance: number;
  heroes: string;
  /** the engine's typed outcome (`ResultView.outcome`), never read from the narration */
  success: boolean;
  total: number;
  difficulty: number;
  /** the service's best-play odds this page saw published before the resolution: the
   *  earliest of this Performance (`draws` tokens were drawn then), null: it saw none */
  shot: { percent: number; text: string; draws: number } | null;
}

export interface OddsView {
  heroes: string;
  /** best play, the headline, and as drawn, the secondary figure (docs/odds.md) */
  bestPlay: number;
  /** null before the first draw of the group ("as drawn" means nothing yet) */
  asDrawn: number | null;
  /** the best-play figure the service published before the last change, null: none */
  before: number | null;
  advice: string[];
}

export interface PerformanceView {
  number: number;
  difficulty: number;
  weight: string;
  resolved: boolean;
  contributions: ContributionView[];
  /** the Intersect groups (two heroes or more) among the contributions, as the engine groups
   *  them (`groups`): each total shown once, named as the group's */
  groups: GroupView[];
  /** the odds, only when the service published them as ready (never a previous state's) */
  odds: OddsView[];
  /** the odds' status, null: no odds section (none open, or the service sent none) */
  oddsStatus: AnswerStatus | null;
  /** what stands in for the odds and advice while they are not here: "Odds: working them
   *  out…" (pending) or "Odds: too many outcomes to count exactly" (too_big); null when ready */
  oddsNote: string | null;
  outcomes: OutcomeView[];
  /** the service's words for what the Performance cost (Fatigue, Strain, Wounds) and, once
   * resolved, what it asks the WorldKeeper (Wear, Impact) */
  costs: string[];
}

/** The words that stand in for an answer the service has not published (yet): `pending`,
 * computed off the table's turn and on its way for this very state; `too_big`, it cannot be
 * computed exactly (and nothing approximate is shown instead). */
export const ANSWER_NOTES: Record<"odds" | "forecast", Record<"pending" | "too_big", string>> = {
  odds: {
    pending: "Odds: working them out…",
    too_big: "Odds: too many outcomes to count exactly",
  },
  forecast: {
    pending: "Forecast: working it out…",
    too_big: "Forecast: too many outcomes to count exactly",
  },
};

function answerNote(name: "odds" | "forecast", status: AnswerStatus | null): string | null {
  return status === "pending" || status === "too_big" ? ANSWER_NOTES[name][status] : null;
}

const cap = (s: string): string => (s ? s[0]?.toUpperCase() + s.slice(1) : s);

function heroName(t: TableRecord, id: string): string {
  return (
    t.heroes[id]?.name ??
    t.sections.performance?.contributions.find((c) => c.hero === id)?.name ??
    id
  );
}

/** The engine's resolving groups of two heroes or more that have declared, each with the
 *  engine's group total (`group_total`, the same on every member) and each hero's share. */
function groups(p: Performance): GroupView[] {
  const out: GroupView[] = [];
  for (const g of p.groups ?? []) {
    const members = p.contributions.filter((c) => g.includes(c.hero));
    const [first] = members;
    if (g.length < 2 || !first) continue;
    out.push({
      key: g.join("+"),
      heroes: members.map((c) => c.hero),
      names: members.map((c) => c.name).join(" + "),
      total: first.group_total,
      shares: members.map((c) => ({ hero: c.hero, name: c.name, total: c.total })),
    });
  }
  return out;
}

function contribution(c: Contribution, all: readonly GroupView[] = []): ContributionView {
  const token = (favor: boolean) => (d: Contribution["drawn"][number]) => ({
    id: d.id,
    name: d.name,
    kind: d.kind,
    shade: d.shade,
    weight: d.weight,
    value: d.value,
    favor,
  });
  return {
    hero: c.hero,
    heroName: c.name,
    declaration: [c.capability, c.shade, c.action, c.training, c.exert ? "exert" : ""]
      .filter(Boolean)
      .map(cap)
      .join(" · "),
    tokens: [...c.drawn.map(token(false)), ...c.favor.map(token(true))],
    setAside: c.set_aside,
    exert: c.exert,
    total: c.total,
    groupTotal: c.group_total,
    group: all.find((g) => g.heroes.includes(c.hero))?.key ?? null,
    drawsLeft: c.draws_left,
    allowed: c.allowed,
  };
}

/** How many tokens the group's heroes have drawn (a count, to label the odds; no rule). */
function drawnBy(t: TableRecord, heroes: readonly string[]): number {
  const cs = t.sections.performance?.contributions ?? [];
  return cs
    .filter((c) => heroes.includes(c.hero))
    .reduce((n, c) => n + c.drawn.length + c.favor.length, 0);
}

function odds(t: TableRecord, g: OddsGroup): OddsView {
  const seen = t.odds[oddsKey(t.sections.performance?.number ?? 0, g.heroes)];
  return {
    heroes: g.heroes.map((h) => heroName(t, h)).join(" + "),
    bestPlay: g.best_play.percent,
    asDrawn: drawnBy(t, g.heroes) > 0 ? g.as_drawn.percent : null,
    before: seen?.before ?? null,
    advice: g.advice.map((a) => a.text),
  };
}

/** Who reads a page: `public` (the overlay on stream, the wall in a hall), `table` (the table
 *  display, at the table), `worldkeeper` (the remote). */
export type Reader = "public" | "table" | "worldkeeper";

const READS: Record<Reader, readonly string[]> = {
  public: ["public"],
  table: ["public", "table"],
  worldkeeper: ["public", "table", "worldkeeper"],
};

/** May `reader` read words whose audience (the engine's, on each event, history narration and
 *  prompt: issue 31 item 2) is `audience`? By that field only, never by the words. Without
 *  one (a service from before the field) the words stay off the public pages. */
export function readable(audience: string | null | undefined, reader: Reader): boolean {
  return READS[reader].includes(audience ?? "table");
}

/** What the open Performance cost each hero, in the service's words (`…/costs`). */
function costs(t: TableRecord): string[] {
  return Object.entries(t.sections.costs ?? {})
    .filter(([, c]) => c.text.length > 0)
    .map(([hero, c]) => `${heroName(t, hero)}: ${c.text.join(", ")}`);
}

/** The narrations after the last `performance_resolved` (of the open one) that ask the table
 *  for something (a prompt), as far as `reader` may read them. */
function prompts(events: readonly EventMessage[], reader: Reader): string[] {
  let start = -1;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e?.type === "performance_started") break;
    if (e?.type === "performance_resolved") {
      start = i;
      break;
    }
  }
  if (start < 0) return [];
  return events
    .slice(start + 1)
    .filter((e) => e.type.endsWith("_prompt") && readable(e.audience, reader))
    .map((e) => e.text.trim());
}

/** `reader`: whose prompts after the outcome it lists (the public pages list none). */
export function performance(t: TableRecord, reader: Reader = "public"): PerformanceView | null {
  const p = t.sections.performance;
  if (!p) return null;
  const o = t.sections.odds;
  // a section without a status is from a service before issue 27: its groups are its answer
  const oddsStatus: AnswerStatus | null = o ? (o.status ?? "ready") : null;
  const together = groups(p);
  return {
    number: p.number,
    difficulty: p.difficulty,
    weight: p.weight,
    resolved: p.resolved,
    contributions: p.contributions.map((c) => contribution(c, together)),
    groups: together,
    odds: oddsStatus === "ready" ? (o?.groups ?? []).map((g) => odds(t, g)) : [],
    oddsStatus,
    oddsNote: p.resolved ? null : answerNote("odds", oddsStatus),
    outcomes: p.results.map((r) =>
      outcomeView(t, {
        key: oddsKey(p.number, r.heroes),
        performance: p.number,
        heroes: r.heroes,
        success: r.outcome === "success",
        total: r.total,
        difficulty: r.difficulty,
      }),
    ),
    costs: [...costs(t), ...(p.resolved && reader !== "public" ? prompts(t.events, reader) : [])],
  };
}

/** One outcome as the pages show it: the heroes named, the odds this page saw before it. */
function outcomeView(t: TableRecord, o: OutcomeSeen): OutcomeView {
  const seen = t.odds[o.key];
  return {
    key: o.key,
    performance: o.performance,
    heroes: o.heroes.map((h) => heroName(t, h)).join(" + "),
    success: o.success,
    total: o.total,
    difficulty: o.difficulty,
    shot: seen ? { percent: seen.first, text: seen.firstText, draws: seen.firstDraws } : null,
  };
}

/** Every outcome the page saw since it opened, in order (the store keeps each as its state
 *  arrives): what the alert queue takes, so two states painted as one never lose one. */
export function outcomesSeen(t: TableRecord | undefined): OutcomeView[] {
  return t ? t.outcomes.map((o) => outcomeView(t, o)) : [];
}

export interface TrackView {
  label: string;
  value: number;
  /** null: no capacity (an open count) */
  capacity: number | null;
}

export interface HeroView {
  id: string;
  name: string;
  tracks: TrackView[];
  favor: number;
  redraws: number;
}

export function heroes(t: TableRecord): HeroView[] {
  return Object.values(t.heroes).map((h: Hero) => ({
    id: h.id,
    name: h.name,
    tracks: [
      { label: "Fatigue", value: h.fatigue, capacity: h.fatigue_capacity },
      { label: "Strain", value: h.strain, capacity: h.strain_capacity },
      { label: "Wounds", value: h.wounds, capacity: null },
    ],
    favor: h.favor,
    redraws: h.redraws,
  }));
}

export interface TimeView {
  day: number;
  band: string;
  due: string;
  weather: string | null;
  /** the Rest under way (the Time Board's `rest`), in words; null: none */
  rest: string | null;
  prompts: string[];
}

const REST_CHOICE: Record<string, string> = {};

function restText(
  t: TableRecord,
  r: NonNullable<NonNullable<TableRecord["sections"]["time"]>["rest"]>,
): string {
  const who = Object.entries(r.heroes)
    .map(([id, choice]) => `${heroName(t, id)} ${REST_CHOICE[choice] ?? choice}`)
    .join(", ");
  return `${cap(r.kind)} Rest · Minor draws ${r.minor_draws} · Full Rest at ${r.full_rest_at}${who ? ` · ${who}` : ""}`;
}

/** `reader`: whose Time Board prompts it lists (by each prompt's audience). */
export function time(t: TableRecord, reader: Reader = "public"): TimeView | null {
  const tb = t.sections.time;
  if (!tb) return null;
  return {
    day: tb.day,
    band: cap(tb.band),
    due: cap(tb.due),
    weather: tb.weather ? tb.weather.name : null,
    rest: tb.rest ? restText(t, tb.rest) : null,
    prompts: tb.prompts.filter((p) => readable(p.audience, reader)).map((p) => p.text),
  };
}

/** One combatant on the wheel, as the engine's combat view says it (C8, C9). */
export interface WheelSeat {
  id: string;
  name: string;
  /** the engine's `dead` (C9): marked on every page, never by colour alone */
  dead: boolean;
  injuries: number;
  /** more injuries than this and the combatant dies (C9) */
  deathLimit: number;
}

export interface CombatView {
  fight: number;
  round: number;
  tick: number;
  /** tick "1"…"6" → the names of who acts on it, and each one's seat (dead, injuries) */
  wheel: { tick: number; names: string[]; seats: WheelSeat[]; now: boolean }[];
  acting: string[];
  /** the attack forecast, only when the service published it as ready */
  forecast: string[];
  forecastStatus: AnswerStatus;
  /** "Forecast: working it out…" / "Forecast: too many outcomes to count exactly"; null when
   *  the forecast is here */
  forecastNote: string | null;
}

export function combat(t: TableRecord): CombatView | null {
  const c = t.sections.combat;
  if (!c) return null;
  const name = (id: string) => c.combatants.find((x) => x.id === id)?.name ?? id;
  const seat = (id: string): WheelSeat => {
    const x = c.combatants.find((y) => y.id === id);
    return {
      id,
      name: x?.name ?? id,
      dead: x?.dead ?? false,
      injuries: x?.injuries ?? 0,
      deathLimit: x?.death_limit ?? 0,
    };
  };
  const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
  const forecastStatus: AnswerStatus = c.forecast_status ?? "ready";
  return {
    fight: c.fight,
    round: c.round,
    tick: c.tick,
    wheel: Object.entries(c.wheel)
      .map(([tick, ids]) => ({
        tick: Number(tick),
        names: ids.map(name),
        seats: ids.map(seat),
        now: Number(tick) === c.tick,
      }))
      .sort((a, b) => a.tick - b.tick),
    acting: c.acting.map(name),
    forecast: (forecastStatus === "ready" ? c.forecast : []).map(
      (f) =>
        `${name(f.attacker)} → ${f.target_name}: ${f.expected_injuries.toFixed(1)} injuries expected, death ${pct(f.death)}`,
    ),
    forecastStatus,
    forecastNote: answerNote("forecast", forecastStatus),
  };
}

export interface HistoryItem {
  seq: number;
  at: string;
  kind: "event" | "outcome";
  text: string;
  success: boolean | null;
}

/** A history row's outcome, for its colour: the engine's typed `success` of each group it
 *  resolved (`…/history`'s `outcomes`, P19), never read from the narration's words. One
 *  outcome, or several alike: that one; none, or a mixed Intersect night: null. */
function verdict(outcomes: readonly boolean[] | undefined): boolean | null {
  if (!outcomes?.length) return null;
  return outcomes.every((x) => x === outcomes[0]) ? (outcomes[0] ?? null) : null;
}

/**
 * The last `n` things that happened at the table, newest first: the service's retained
 * `…/history` (the journal, narrated) when it publishes one, else the draws and outcomes this
 * page saw on the event stream since it opened.
 */
export function history(t: TableRecord, n: number, reader: Reader = "public"): HistoryItem[] {
  const entries = t.sections.history?.entries;
  if (entries) {
    return entries
      .slice(-n)
      .reverse()
      .map((e) => {
        // each narration as far as `reader` may read it (its audience, one per event)
        const said = e.events.filter((_, i) => readable(e.audiences?.[i], reader));
        const text = e.events.length ? said.map((x) => x.trim()).join(" · ") : e.command;
        const success = verdict(e.outcomes);
        return {
          seq: e.seq,
          at: new Date(e.at * 1000).toISOString(),
          kind: e.outcomes?.length ? "outcome" : "event",
          text,
          success,
        };
      });
  }
  const out: HistoryItem[] = [];
  for (let i = t.events.length - 1; i >= 0 && out.length < n; i--) {
    const e = t.events[i];
    if (!e || !readable(e.audience, reader)) continue;
    if (e.type === "token_drawn" || e.type === "favor_called" || e.type === "token_replaced") {
      out.push({ seq: e.seq, at: e.at, kind: "event", text: e.text.trim(), success: null });
    } else if (e.type === "performance_resolved") {
      const success = typeof e.success === "boolean" ? e.success : null;
      out.push({ seq: e.seq, at: e.at, kind: "outcome", text: e.text.trim(), success });
    }
  }
  return out;
}

/** The last ended session's recap, when the service has written one it serves (`href` is null
 *  without `[record] recap_url`: nothing to link to). */
export function recap(t: TableRecord): { session: string; href: string } | null {
  const r = t.sections.history?.recap;
  return r?.href ? { session: r.session, href: r.href } : null;
}

/** How long the table display and the wall show a refusal or an unknown tag (ms). */
export const ERROR_SHOWN_MS = 20_000;
/** … and the overlay, on stream: briefly (ms). */
export const ERROR_SHOWN_BRIEF_MS = 8_000;

/** The service's last refusal or unknown tag (`…/error`), in its words, while it is recent. */
export interface Refusal {
  /** message, rule id and fix: for the table display */
  full: string;
  /** what was refused and why, no fix: for the overlay and the wall */
  brief: string;
  /** the engine's code: `illegal`, `malformed`, `unknown` (a tag), `duplicate` (a second service) */
  code: string;
  /** when it arrived (ms since the epoch) */
  at: number;
}

export function recentRefusal(
  t: TableRecord,
  now: number,
  shownMs: number = ERROR_SHOWN_MS,
): Refusal | null {
  const e = t.lastError;
  if (!e || t.lastErrorAt === null || now - t.lastErrorAt > shownMs) return null;
  const rule = e.rule ? ` [${e.rule}]` : "";
  const cmd = typeof e.command?.cmd === "string" ? e.command.cmd : null;
  return {
    full: `${e.message}${rule}${e.fix ? ` — ${e.fix}` : ""}`,
    brief: cmd ? `${cmd} refused${rule}: ${e.message}` : `${e.message}${rule}`,
    code: e.code,
    at: t.lastErrorAt,
  };
}

/** The table display's line: the whole refusal, with the fix. */
export function recentError(t: TableRecord, now: number): string | null {
  return recentRefusal(t, now)?.full ?? null;
}

/** The narration to announce through the aria-live region for an event, or null (also when
 *  `reader` may not read it). */
export function announcement(e: EventMessage, reader: Reader = "public"): string | null {
  const spoken = new Set<EventMessage["type"]>([
    "token_drawn",
    "token_replaced",
    "favor_called",
    "performance_resolved",
  ]);
  return spoken.has(e.type) && readable(e.audience, reader) ? e.text.trim() : null;
}

export interface Liveness {
  /** live: connected, the table online, its retained state fresh */
  state: "live" | "offline" | "stale" | "waiting";
  label: string;
  /** seconds since the last message for this table, null: none yet */
  age: number | null;
  gap: string | null;
}

/** A table whose bridge to the venue is down (its `rhuna/uplink/<table>` is "0"): what it shows
 *  at the venue is its last state before the cut; its own service may well be running. */
export const UPLINK_OFFLINE = "offline (uplink)";

/** How often the service says `…/info` (companion/mqtt/identity.py, CLOCK_EVERY). */
export const INFO_BEAT_MS = 15_000;
/** Two beats and a second: a live `…/info` this late makes the table "stale". With the status
 *  line's hold (STATUS_HOLD_MS, 2.5 s) and a paint a second, it reads so by 35 s. */
export const INFO_LATE_MS = 2 * INFO_BEAT_MS + 1000;
export const QUIET_LABEL = "stale: the table service has gone quiet (no word for 30 s)";

/** How long a page waits for its table's `…/status` before it says there is no such table. */
export const UNKNOWN_TABLE_MS = 5000;

/** The words for a link that is not online: what to do, when the page knows (no `broker=`, a
 *  refused login), else the link's own error. */
export function linkLabel(snap: Snapshot): string {
  if (snap.link === "connecting" && !snap.linkAdvice) return "connecting to the broker…";
  if (snap.linkAdvice) return `offline: ${snap.linkAdvice}`;
  return `offline: no broker${snap.linkError ? ` (${snap.linkError})` : ""}`;
}

/** `id`: the table the page waits for (to name it when the broker has none by that id). */
/**
 * When the table last changed, on this page's clock (ms since the epoch): the service's own
 * stamp (`changed_at`) corrected by the clock offset the page learnt from a live `…/info`
 * (none learnt yet: the clocks taken as one); without a stamp, the last change this page saw
 * happen; null: neither.
 */
/** The clock offset a retained `…/info` allows: it is 0 to a beat old (republished every
 *  INFO_BEAT_MS), so the service's clock less this page's lies in [guess, guess + a beat and a
 *  second]; the value of that span nearest 0 (clocks in step read as one, never a beat off). */
function guessedOffset(t: TableRecord): number | null {
  if (t.clockGuess === null || t.status === "offline") return null;
  const low = t.clockGuess;
  const high = t.clockGuess + INFO_BEAT_MS + 1000;
  return low > 0 ? low : Math.min(high, 0);
}

export function lastChange(t: TableRecord | undefined): number | null {
  if (!t) return null;
  // until a live `…/info`: the retained one's offset (a beat old at most) while the table is
  // not offline, so a browser clock 5 min fast does not read "changed 5 min ago" (issue 42 item 5)
  if (t.changedAt !== null) return t.changedAt - (t.clockOffset ?? guessedOffset(t) ?? 0);
  return t.lastUpdate;
}

export function liveness(
  snap: Snapshot,
  t: TableRecord | undefined,
  now: number,
  id: string | null = null,
): Liveness {
  const changed = lastChange(t);
  const age = changed !== null ? Math.max(0, Math.floor((now - changed) / 1000)) : null;
  const gap = t ? gapText(t, now) : null;
  if (snap.link !== "online") {
    const label = linkLabel(snap);
    // connecting for the first time, with or without the state inlined in the page: waiting
    const first = snap.link === "connecting" && (!t || !snap.wasOnline);
    return { state: first ? "waiting" : "offline", label, age, gap };
  }
  // before the table's own status: the venue keeps the retained "online" of a table it lost
  if (t?.uplink === "down") return { state: "offline", label: UPLINK_OFFLINE, age, gap };
  if (!t || t.status === "unknown") {
    if (id !== null && now - snap.linkSince >= UNKNOWN_TABLE_MS) {
      const seen = snap.others.length ? snap.others.join(", ") : "none";
      return {
        state: "waiting",
        label: `no table '${id}' on this broker; tables seen: ${seen}`,
        age,
        gap,
      };
    }
    return { state: "waiting", label: "waiting for the table…", age, gap };
  }
  if (t.status === "offline")
    return { state: "offline", label: "offline: the table service is not running", age, gap };
  if (t.stale) return { state: "stale", label: "reconnected: repainting…", age, gap };
  // a frozen service keeps its retained "online" until the broker's keepalive gives up (about
  // 90 s): its …/info, said every INFO_BEAT_MS, two beats late says it first (issue 42 item 5)
  if (t.infoAt !== null && now - t.infoAt > INFO_LATE_MS)
    return { state: "stale", label: QUIET_LABEL, age, gap };
  return { state: "live", label: "live", age, gap };
}

/** How long the status line still says a gap was repainted (ms). */
export const GAP_SHOWN_MS = 15_000;

/**
 * The status line's word on the newest gap in the events: while the page waits for the
 * retained state it says so; once repainted it says that, until the next event comes in
 * sequence (or GAP_SHOWN_MS); then nothing. The store keeps every gap for the record.
 */
export function gapText(t: TableRecord, now: number): string | null {
  const last = t.gaps[t.gaps.length - 1];
  if (!last) return null;
  const missed =
    last.from === last.to ? `missed event ${last.from}` : `missed events ${last.from}–${last.to}`;
  if (last.repainted === null) return `${missed} · repainting from the retained state…`;
  if (last.closed !== null || now - last.repainted > GAP_SHOWN_MS) return null;
  return `${missed} · repainted from the retained state`;
}

export function ageText(age: number | null): string {
  // the age of the last change this page saw happen (a retained copy, a status or an error
  // does not count): a page opened late does not know when the table last changed
  if (age === null) return "no change seen yet";
  if (age < 60) return `changed ${age} s ago`;
  if (age < 3600) return `changed ${Math.floor(age / 60)} min ago`;
  return `changed ${Math.floor(age / 3600)} h ago`;
}

/** One table on the convention wall. */
export interface WallCard {
  id: string;
  live: Liveness;
  performance: string | null;
  lastOutcome: { text: string; success: boolean | null } | null;
  /** the table's last refusal or unknown tag, while it is recent (brief) */
  refusal: string | null;
  /** the key figure, short, for a dense wall: "Aria 3/5 · Bren 1/5", or "—" */
  figure: string;
}

/** Each figure set against the Difficulty, once: a hero alone ("Aria 3"), an Intersect group
 *  once, named as the group's ("Bren + Dara together 4"). */
function figures(p: PerformanceView, of: string): string[] {
  const out: string[] = [];
  for (const c of p.contributions) {
    const g = p.groups.find((x) => x.key === c.group);
    if (!g) out.push(`${c.heroName} ${c.groupTotal}${of}`);
    else if (g.heroes[0] === c.hero) out.push(`${g.names} together ${g.total}${of}`);
  }
  return out;
}

export function wallCard(snap: Snapshot, t: TableRecord, now: number): WallCard {
  const p = performance(t);
  let perf: string | null = null;
  if (p) {
    const who = figures(p, "").join(", ") || "no one declared yet";
    perf = `Performance ${p.number} · Difficulty ${p.difficulty} · ${who}`;
  }
  // the outcome event's own words (its type says it is the outcome): a history entry joins
  // every narration of its command, the WorldKeeper's prompts included, and carries no type
  let lastOutcome: WallCard["lastOutcome"] = null;
  for (let i = t.events.length - 1; i >= 0 && !lastOutcome; i--) {
    const e = t.events[i];
    if (e?.type === "performance_resolved" && readable(e.audience, "public"))
      lastOutcome = {
        text: e.text.trim(),
        success: typeof e.success === "boolean" ? e.success : null,
      };
  }
  const o = p?.outcomes[0];
  if (!lastOutcome && p && o) {
    // the verdict in words as the narration and the overlay put it (never by colour alone)
    lastOutcome = {
      text: `${o.heroes}: ${o.total} vs ${o.difficulty} — ${o.success ? "SUCCESS" : "FAILURE"}`,
      success: o.success,
    };
  }
  const refusal = recentRefusal(t, now)?.brief ?? null;
  const figure = p
    ? figures(p, `/${p.difficulty}`).join(" · ") || `Difficulty ${p.difficulty}`
    : "—";
  return {
    id: t.id,
    live: liveness(snap, t, now),
    performance: perf,
    lastOutcome,
    refusal,
    figure,
  };
}

/** How long a success stays a candidate for the wall's featured card (ms): 10 minutes. */
export const FEATURED_MS = 10 * 60_000;

/** The wall's featured moment: a success and the best-play odds it beat, as its table
 *  published them before the first draw (the same figure as "SUCCESS — a 12% shot"). */
export interface Featured {
  table: string;
  heroes: string;
  percent: number;
  /** the same figure in the engine's whole percent, as the overlay's meter said it */
  text: string;
  /** after how many draws that figure was published (0: before the first) */
  draws: number;
  /** when the wall saw the success (ms since the epoch) */
  at: number;
}

/**
 * The most improbable success of the last FEATURED_MS across every table: the lowest best-play
 * percent a table published for a group that then succeeded. Only figures the tables published
 * and this page saw count: nothing is computed here, and a success whose odds it never saw
 * (the wall opened after the draws) is not a candidate.
 */
export class FeaturedPicker {
  private seen = new Map<string, Featured>();

  next(snap: Snapshot, now: number): Featured | null {
    for (const t of snap.tables.values()) {
      for (const o of performance(t)?.outcomes ?? []) {
        if (!o.success || !o.shot) continue;
        const key = `${t.id}|${o.key}`;
        if (!this.seen.has(key))
          this.seen.set(key, {
            table: t.id,
            heroes: o.heroes,
            percent: o.shot.percent,
            text: o.shot.text,
            draws: o.shot.draws,
            at: now,
          });
      }
    }
    let best: Featured | null = null;
    for (const [key, f] of this.seen) {
      if (now - f.at > FEATURED_MS) this.seen.delete(key);
      else if (!best || f.percent < best.percent || (f.percent === best.percent && f.at > best.at))
        best = f;
    }
    return best;
  }
}

/**
 * The board's unsync (`…/board`, docs/readers.md "The board, in sync or not"): each well or
 * token the readers and the engine disagree about, in the table's words, while it stands; none
 * when the board is in sync (or its topic has not come).
 */
export function board(t: TableRecord | undefined): BoardAlert[] {
  const b = t?.sections.board;
  return b && !b.sync ? b.alerts : [];
}

/** An unsync's words without the panel's "unsync: " (the page says it once, above them). */
export function boardText(a: BoardAlert): string {
  return a.text.replace(/^unsync: /, "");
}
