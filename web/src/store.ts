/**
 * The one client-side store: every table the connection has heard of, as immutable records.
 *
 * The connection (`connection.ts`) is its only writer; pages only read snapshots and subscribe.
 * It keeps what the service published (retained sections, heroes, the event stream), and what
 * a page needs to be honest about staleness: the broker link, each table's `status`, when the
 * last message came, and gaps in the events' `seq`. It computes nothing the rules decide.
 */

import { PAGE_SECTIONS, type Payloads, stateSections } from "./generated/topics";
import { heardOnAir, NO_ON_AIR, type OnAir, unreadableOnAir } from "./onair";
import type {
  AuditMessage,
  ErrorMessage,
  EventMessage,
  GmMessage,
  Hero,
  SectionName,
  Sections,
  Status,
} from "./payloads";

export type Link = "connecting" | "online" | "offline";

/** A hole in a table's event stream: events `from`…`to` never arrived. */
export interface Gap {
  from: number;
  to: number;
  /** when it was noticed (ms since the epoch) */
  at: number;
  /** when the page had the whole retained state again after it (ms), null: not yet */
  repainted: number | null;
  /** when the next event in sequence came after that repaint: the stream is whole again */
  closed: number | null;
}

/** The best-play odds the service published for one group of one Performance, as this page
 *  saw them: kept so the outcome can say what it beat, and a draw what it changed. */
export interface OddsSeen {
  /** the earliest figure seen (percent), and how many tokens the group had drawn then */
  first: number;
  /** that figure as the engine words it for people, whole percent ("4%", "<1%": the tail of
   *  its best advice, engine/performance/odds.py `percent_text`), the meter's very words */
  firstText: string;
  firstDraws: number;
  latest: number;
  /** the figure before `latest`, null: only one seen */
  before: number | null;
}

/** `OddsSeen`'s key: a Performance's number and its group's heroes. */
export function oddsKey(performance: number, heroes: readonly string[]): string {
  return `${performance}|${[...heroes].sort().join("+")}`;
}

/** The engine's whole percent at the tail of an advice ("… → 56%"), else the figure as it is. */
export function wholePercent(advice: string | undefined, percent: number): string {
  return /→\s*(\S+%)\s*$/.exec(advice ?? "")?.[1] ?? `${percent}%`;
}

/** Record the service's ready best-play figures of the open Performance (no rule: a copy). */
function recordOdds(t: TableRecord): Readonly<Record<string, OddsSeen>> {
  const p = t.sections.performance;
  const o = t.sections.odds;
  if (!p || p.resolved || !o || (o.status ?? "ready") !== "ready") return t.odds;
  let next: Record<string, OddsSeen> | null = null;
  for (const g of o.groups) {
    const key = oddsKey(p.number, g.heroes);
    const pct = g.best_play.percent;
    const old = (next ?? t.odds)[key];
    if (old && old.latest === pct) continue;
    const draws = p.contributions
      .filter((c) => g.heroes.includes(c.hero))
      .reduce((n, c) => n + c.drawn.length + c.favor.length, 0);
    next ??= Object.fromEntries(
      Object.entries(t.odds).filter(([k]) => Number(k.split("|")[0]) >= p.number - 1),
    );
    next[key] = old
      ? { ...old, latest: pct, before: old.latest }
      : {
          first: pct,
          firstText: wholePercent(g.advice[0]?.text, pct),
          firstDraws: draws,
          latest: pct,
          before: null,
        };
  }
  return next ?? t.odds;
}

/** One outcome as the state that resolved it said it (P19): kept as each state arrives, so
 *  that states coalesced into one snapshot (several messages in one task) or a page that
 *  paints every 100 ms never lose one; the alert queue takes every one (alerts.ts). */
export interface OutcomeSeen {
  /** `oddsKey(performance, heroes)`: unique for the night */
  key: string;
  performance: number;
  heroes: readonly string[];
  success: boolean;
  total: number;
  difficulty: number;
}

/** outcomes a table remembers, newest last (the alert queue has taken each long before) */
export const OUTCOMES_KEPT = 50;

/** Add the open Performance's outcomes this page has not seen yet (no rule: a copy). */
function recordOutcomes(t: TableRecord): readonly OutcomeSeen[] {
  const p = t.sections.performance;
  if (!p?.results.length) return t.outcomes;
  return p.results.reduce(
    (kept, r) =>
      withOutcome(kept, p.number, r.heroes, r.outcome === "success", r.total, r.difficulty),
    t.outcomes,
  );
}

/** A `performance_resolved` event's outcome, if the page has not seen it. The event is the
 *  one copy every page receives: the service publishes the newest state only, so a state
 *  that resolved a Performance the table moved past at once may never be sent (a service
 *  before the event carried `performance` is left to its states). */
function eventOutcome(t: TableRecord, e: EventMessage): readonly OutcomeSeen[] {
  if (e.type !== "performance_resolved" || typeof e.performance !== "number") return t.outcomes;
  return withOutcome(t.outcomes, e.performance, e.heroes, e.success, e.total, e.difficulty);
}

/** `kept` with this outcome last, unless it is kept already (its key); the newest kept. */
function withOutcome(
  kept: readonly OutcomeSeen[],
  performance: number,
  heroes: readonly string[],
  success: boolean,
  total: number,
  difficulty: number,
): readonly OutcomeSeen[] {
  const key = oddsKey(performance, heroes);
  if (kept.some((o) => o.key === key)) return kept;
  const o = { key, performance, heroes: [...heroes], success, total, difficulty };
  return [...kept, o].slice(-OUTCOMES_KEPT);
}

export interface TableRecord {
  readonly id: string;
  /** the retained `…/status`; "unknown" until it arrives */
  readonly status: Status | "unknown";
  readonly sections: Readonly<Sections>;
  readonly heroes: Readonly<Record<string, Hero>>;
  /** the newest events seen since the page opened, oldest first (at most `EVENTS_KEPT`) */
  readonly events: readonly EventMessage[];
  readonly lastError: ErrorMessage | null;
  /** when `lastError` arrived (ms since the epoch) */
  readonly lastErrorAt: number | null;
  readonly lastSeq: number | null;
  /** the best-play odds seen per Performance and group (`oddsKey`) */
  readonly odds: Readonly<Record<string, OddsSeen>>;
  /** every outcome seen since the page opened, in the order the states said them */
  readonly outcomes: readonly OutcomeSeen[];
  readonly gaps: readonly Gap[];
  /** when this page saw the table change live (ms since the epoch): a section, a hero or an
   *  event as it happened, never a retained copy replayed at subscribe (that says nothing of
   *  when it changed), a status or an error; null: no change seen yet */
  readonly lastUpdate: number | null;
  /** when the table last changed by the service's own stamp (`…/state`'s `changed_at`, ms
   *  since the epoch on the service's clock), null: not stamped (a service before it) */
  readonly changedAt: number | null;
  /** the service's clock less this page's (ms), from a live `…/info`'s `now`; null: unknown */
  readonly clockOffset: number | null;
  /** the same from the retained `…/info` (republished every 15 s, so at most a beat old): the
   *  offset until a live one comes, while the table is online; null: none */
  readonly clockGuess: number | null;
  /** when this page last heard a live `…/info` (its clock, ms since the epoch): the service
   *  says it every 15 s, so one two beats late is a service gone quiet; null: none heard */
  readonly infoAt: number | null;
  /** the table's name as its service publishes it (`…/info`'s `name`, the table file's own),
   *  null: none heard (the pages show the id) */
  readonly name: string | null;
  /** true from a lost broker link until this table's retained state arrives again */
  readonly stale: boolean;
  /** at a venue broker: the table's bridge (`rhuna/uplink/<table>`, retained "1"/"0", the
   *  bridge's notification topic); null where no uplink flag was heard (a table's own broker) */
  readonly uplink: "up" | "down" | null;
  /** `…/gm` (the gm's login alone may read it): the whole roster, an improvised foe not yet
   *  in a fight too, and the next Undo's words; `…/state` carries the public ones, and the
   *  store sets these into it. null: not followed, or not come yet */
  readonly gm: GmMessage | null;
  /** `…/audit` (the gm's login only): the bag audit that runs, or the last one's answer;
   *  null: not followed, or none yet */
  readonly audit: AuditMessage | null;
  /** `…/overlay`: the WorldKeeper's switches for the stream overlays (./onair.ts), followed by
   *  the overlay and gm.html; presentation, not the table's: it is no change of the table */
  readonly onAir: OnAir;
}

export interface Snapshot {
  readonly link: Link;
  /** why the link is not online, in words (the broker's refusal, a socket error) */
  readonly linkError: string | null;
  /** when the link last changed (ms since the epoch) */
  readonly linkSince: number;
  /** the link has been online since the page opened: before, a table held is the state the
   *  page server inlined in the page (connection.ts), not one a lost link left behind */
  readonly wasOnline: boolean;
  /** what to do about a link that is not online, in words (the page has no `broker=`, the
   *  broker refused the login), null: nothing the page can say beyond `linkError` */
  readonly linkAdvice: string | null;
  /** other tables this broker has a `…/status` for (a one-table page, for "tables seen") */
  readonly others: readonly string[];
  readonly tables: ReadonlyMap<string, TableRecord>;
  /** rises by one at every change: a cheap "did anything change" for views */
  readonly version: number;
}

export const EVENTS_KEPT = 200;
/** the gaps a table remembers (the newest is the one the status line speaks of) */
export const GAPS_KEPT = 20;
/** `seq`s remembered to drop QoS 1 duplicates (and to tell them from a restarted sequence) */
const SEEN_KEPT = 256;

export function emptyTable(id: string): TableRecord {
  return {
    id,
    status: "unknown",
    // the public pages' sections, null until each comes (the topic catalogue's)
    sections: Object.fromEntries(PAGE_SECTIONS.map((s) => [s, null])) as unknown as Sections,
    heroes: {},
    events: [],
    lastError: null,
    lastErrorAt: null,
    gm: null,
    audit: null,
    onAir: NO_ON_AIR,
    lastSeq: null,
    odds: {},
    outcomes: [],
    gaps: [],
    lastUpdate: null,
    changedAt: null,
    clockOffset: null,
    clockGuess: null,
    infoAt: null,
    name: null,
    stale: false,
    uplink: null,
  };
}

export type Listener = (snapshot: Snapshot) => void;

export class Store {
  private snap: Snapshot;
  private listeners = new Set<Listener>();
  private seen = new Map<string, Set<number>>();
  private pending = false;
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
    this.snap = {
      link: "connecting",
      linkError: null,
      linkSince: now(),
      wasOnline: false,
      linkAdvice: null,
      others: [],
      tables: new Map(),
      version: 0,
    };
  }

  get snapshot(): Snapshot {
    return this.snap;
  }

  /** Call `fn` with every new snapshot (changes in one task are coalesced); returns unsubscribe. */
  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** What to do about the link (kept until the link is online), null: nothing to add. */
  setLinkAdvice(advice: string | null): void {
    if (advice !== this.snap.linkAdvice) this.commit({ linkAdvice: advice });
  }

  /** Another table seen on the broker (its `…/status`), for a page that waits for its own. */
  noteOther(table: string): void {
    if (this.snap.others.includes(table)) return;
    this.commit({ others: [...this.snap.others, table].sort() });
  }

  setLink(link: Link, error: string | null = null): void {
    if (link === this.snap.link && error === this.snap.linkError) return;
    let tables = this.snap.tables;
    if (link !== "online" && this.snap.link === "online") {
      // nothing we hold can be trusted as live any more: a table's retained state clears it
      tables = new Map([...tables].map(([id, t]) => [id, { ...t, stale: true }]));
    }
    const linkAdvice = link === "online" ? null : this.snap.linkAdvice;
    const wasOnline = this.snap.wasOnline || link === "online";
    this.commit({ link, linkError: error, linkSince: this.now(), linkAdvice, tables, wasOnline });
  }

  /**
   * A table's `…/status`. The connection subscribes to it last, so its retained copy (sent on
   * every subscription) comes after every other retained topic of that table: its arrival
   * means the page holds the table's whole retained state again (after a reconnect, or after
   * the connection asked for it again because of a gap).
   */
  setStatus(table: string, status: Status, retained = false): void {
    // a live status (the service republishing after its own reconnect, when the broker had
    // lost the retained state) also ends the staleness: the service's fresh state follows it
    this.update(
      table,
      (t) => {
        if (!retained) return { ...t, status, stale: false };
        const at = this.now();
        const gaps = t.gaps.map((g) => (g.repainted === null ? { ...g, repainted: at } : g));
        return { ...t, status, stale: false, gaps };
      },
      false,
    ); // a status is no change of the table: "offline" must not reset its age
  }

  /**
   * A retained section. `…/state` (the whole table in one message) also sets every section it
   * holds under the same key (the catalogue's `in_state`: `stateSections`), in the same
   * snapshot: a page that follows it never paints one state's Performance
   * beside another's odds (the sections' own topics arrive one message at a time, and a
   * pending answer's placeholder must replace the previous state's figures at once).
   */
  setSection<K extends SectionName>(
    table: string,
    name: K,
    value: Payloads[K] | null,
    retained = false,
  ): void {
    this.update(
      table,
      (t) => {
        if (name !== "state") {
          const next = {
            ...t,
            sections: { ...t.sections, [name]: value },
            changedAt: name === "history" ? historyChange(value, t.changedAt) : t.changedAt,
          };
          return { ...next, odds: recordOdds(next), outcomes: recordOutcomes(next) };
        }
        // the gm's page: the whole roster and the Undo's words (`…/gm`) in the public ones' place
        const whole = withGm((value ?? null) as Payloads["state"] | null, t.gm);
        const sections: Sections = { ...t.sections, state: whole, ...stateSections(whole) };
        const stamp = (whole as { changed_at?: unknown } | null)?.changed_at;
        const changedAt = typeof stamp === "string" ? Date.parse(stamp) : Number.NaN;
        const next = {
          ...t,
          sections,
          changedAt: Number.isFinite(changedAt) ? changedAt : t.changedAt,
        };
        return { ...next, odds: recordOdds(next), outcomes: recordOutcomes(next) };
      },
      !retained,
    );
  }

  /** The table's uplink flag at a venue (`rhuna/uplink/<table>`): its bridge connected or not.
   *  It does not count as an update of the table (its state is no fresher for it). */
  setUplink(table: string, up: boolean): void {
    const old = this.snap.tables.get(table) ?? emptyTable(table);
    const uplink = up ? "up" : "down";
    if (old.uplink === uplink) return;
    const tables = new Map(this.snap.tables);
    tables.set(table, { ...old, uplink });
    this.commit({ tables });
  }

  /** A live `…/info` (republished every few seconds with the service's `now`): how far the
   *  service's clock is from this page's. A retained copy's `now` is old: not a reading.
   *  Its `name` (any copy's) is the table's name the pages show. */
  setInfo(table: string, now: unknown, retained: boolean, name?: unknown): void {
    if (typeof name === "string" && name !== "" && this.snap.tables.get(table)?.name !== name)
      this.update(table, (t) => ({ ...t, name }), false);
    if (typeof now !== "string") return;
    const at = Date.parse(now);
    if (!Number.isFinite(at)) return;
    const heard = this.now();
    if (retained) {
      this.update(table, (t) => ({ ...t, clockGuess: at - heard }), false);
      return;
    }
    this.update(table, (t) => ({ ...t, clockOffset: at - heard, infoAt: heard }), false);
  }

  setHero(table: string, id: string, hero: Hero | null, retained = false): void {
    this.update(
      table,
      (t) => {
        const heroes = { ...t.heroes };
        if (hero === null) delete heroes[id];
        else heroes[id] = hero;
        return { ...t, heroes };
      },
      !retained,
    );
  }

  /** `…/gm` (the gm's login only): the whole roster and the Undo's words, into `…/state` too */
  setGm(table: string, gm: GmMessage | null): void {
    this.update(
      table,
      (t) => {
        const state = t.sections.state;
        if (!state) return { ...t, gm };
        return { ...t, gm, sections: { ...t.sections, state: withGm(state, gm) } };
      },
      false,
    );
  }

  /** `…/audit` (the gm's login only): the bag audit's reads and answer */
  setAudit(table: string, audit: AuditMessage | null): void {
    this.update(table, (t) => ({ ...t, audit }), false);
  }

  /** `…/overlay`: the WorldKeeper's switches (`data` its JSON, null: cleared, `undefined`: a
   *  payload that was not JSON); a bad one is kept as its reason, the defaults hold */
  setOnAir(table: string, data: unknown, retained: boolean): void {
    this.update(
      table,
      (t) => ({
        ...t,
        onAir: data === undefined ? unreadableOnAir(t.onAir) : heardOnAir(t.onAir, data, retained),
      }),
      false,
    );
  }

  setError(table: string, error: ErrorMessage): void {
    this.update(table, (t) => ({ ...t, lastError: error, lastErrorAt: this.now() }), false);
  }

  /**
   * One message of `…/events`: duplicates (QoS 1) dropped, gaps in `seq` recorded. Returns
   * true when it opened a gap (the connection then asks for the retained state again).
   */
  addEvent(table: string, event: EventMessage): boolean {
    const seen = this.seen.get(table) ?? new Set<number>();
    this.seen.set(table, seen);
    if (seen.has(event.seq)) return false;
    let opened = false;
    this.update(table, (t) => {
      let gaps = t.gaps;
      const last = gaps[gaps.length - 1];
      if (t.lastSeq !== null && event.seq > t.lastSeq + 1) {
        opened = true;
        const gap = { from: t.lastSeq + 1, to: event.seq - 1, at: this.now() };
        gaps = [...gaps, { ...gap, repainted: null, closed: null }].slice(-GAPS_KEPT);
      } else if (
        last &&
        last.repainted !== null &&
        last.closed === null &&
        event.seq === (t.lastSeq ?? 0) + 1
      ) {
        // in sequence after the repaint: what was missed is behind us
        gaps = [...gaps.slice(0, -1), { ...last, closed: this.now() }];
      }
      if (t.lastSeq !== null && event.seq <= t.lastSeq) {
        // below what we saw and never seen: the service started a new journal (seq from 1)
        seen.clear();
      }
      seen.add(event.seq);
      if (seen.size > SEEN_KEPT) {
        const oldest = seen.values().next().value;
        if (oldest !== undefined) seen.delete(oldest);
      }
      const events = [...t.events, event].slice(-EVENTS_KEPT);
      return { ...t, events, gaps, lastSeq: event.seq, outcomes: eventOutcome(t, event) };
    });
    return opened;
  }

  /** `changed`: the table changed live now (its age starts again). */
  private update(table: string, fn: (t: TableRecord) => TableRecord, changed = true): void {
    const old = this.snap.tables.get(table) ?? emptyTable(table);
    const next = { ...fn(old), lastUpdate: changed ? this.now() : old.lastUpdate };
    const tables = new Map(this.snap.tables);
    tables.set(table, next);
    this.commit({ tables });
  }

  private commit(change: Partial<Snapshot>): void {
    this.snap = { ...this.snap, ...change, version: this.snap.version + 1 };
    if (this.pending) return;
    this.pending = true;
    // one notification per task: a burst of retained messages paints once
    queueMicrotask(() => {
      this.pending = false;
      for (const fn of this.listeners) fn(this.snap);
    });
  }
}

/** `…/state` with what `…/gm` says in place of its public roster, Undo and legal commands
 *  (the gm's page) */
function withGm(state: Payloads["state"] | null, gm: GmMessage | null): Payloads["state"] | null {
  if (!state || !gm) return state;
  return { ...state, roster: gm.roster, undo: gm.undo, legal: gm.legal ?? state.legal };
}

/** A page without `…/state` (the wall): when the table last changed by the service's own
 *  clock is its newest journal entry's `at` (seconds since the epoch), as the service stamps
 *  `changed_at` from it (companion/mqtt/bridge.py); the later of it and what was known. */
function historyChange(value: unknown, known: number | null): number | null {
  const entries = (value as { entries?: { at?: unknown }[] } | null)?.entries;
  const at = entries?.[entries.length - 1]?.at;
  if (typeof at !== "number" || !Number.isFinite(at)) return known;
  return known === null ? at * 1000 : Math.max(known, at * 1000);
}
