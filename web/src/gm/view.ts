/**
 * What the remote reads out of the table's record: the one gm module that names payload keys
 * (as model.ts is for the other pages). It picks names and lists, it never decides a rule:
 * whether a draw, an action or a Rest is allowed is the service's answer to the command.
 */

import type {
  Bag,
  Combat,
  Combatant,
  Contribution,
  Hero,
  Performance,
  Prompt,
  Refusal,
  RosterEntry,
  TableView,
  TimeBoard,
} from "../payloads";
import type { TableRecord } from "../store";
import type { Choices } from "./forms";
import type { Marks } from "./ui";

/** the payloads' own types (generated from docs/state.schema.json): a key renamed in the
 *  service breaks `tsc` here, as it does in model.ts */
export type { Bag, Prompt, RosterEntry, TimeBoard };
export type Fight = Combat;
export type FightCombatant = Combatant;

/** `…/state`, null until it arrives */
function state(t: TableRecord): TableView | null {
  return t.sections.state ?? null;
}

/** Every bag with what is in it now: `…/bags` (`…/state` carries the bags without their
 *  tokens, to stay under Mosquitto's 8 KB a pass; docs/mqtt.md). */
export function bags(t: TableRecord): Record<string, Bag> {
  return t.sections.bags ?? state(t)?.bags ?? {};
}

/**
 * The engine's answer to "would the table take this now?" (`…/state`'s `legal`, engine/legal.py):
 * the refusal (its rule id and fix) when it would not, null when it would or when the service
 * did not say (an older service, a view past its checks, the state not here yet: the button
 * stays enabled and the service's reply says). `who`: a hero's or a combatant's command.
 */
export function refusal(
  t: TableRecord,
  name: string,
  who: { hero: string } | { combatant: string } | null = null,
): Refusal | null {
  const legal = state(t)?.legal;
  if (!legal) return null;
  const entry =
    who === null
      ? legal.table
      : "hero" in who
        ? legal.heroes[who.hero]
        : legal.combatants[who.combatant];
  return entry?.[name] ?? null;
}

/** What the panels' repaint keys need of the answer above. */
export function legalKey(t: TableRecord): unknown {
  return state(t)?.legal ?? null;
}

/**
 * Has the whole table arrived? `…/state` and every hero it names (`…/heroes/<id>`, their own
 * retained topics). Opened late, a page gets the retained messages one at a time: until then it
 * shows "loading", never a resolved Performance without its heroes (issue 32).
 */
export function loaded(t: TableRecord): boolean {
  const whole = state(t);
  return whole !== null && Object.keys(whole.heroes).every((id) => id in t.heroes);
}

/** A token's value as the table says it: `+2`, `0`, `-1` (never `+-1`). */
export function signed(value: number): string {
  return value > 0 ? `+${value}` : String(value);
}

export function heroes(t: TableRecord): Hero[] {
  return Object.values(t.heroes);
}

export function performance(t: TableRecord): Performance | null {
  return t.sections.performance;
}

export function contribution(t: TableRecord, hero: string): Contribution | null {
  return performance(t)?.contributions.find((c) => c.hero === hero) ?? null;
}

/** The Intersect group (I-P10) `hero` resolves in, as the engine groups them (`groups`):
 *  its declared heroes, null when the hero resolves alone. */
export function group(t: TableRecord, hero: string): Contribution[] | null {
  const p = performance(t);
  const g = p?.groups?.find((x) => x.includes(hero));
  if (!p || !g || g.length < 2) return null;
  return p.contributions.filter((c) => g.includes(c.hero));
}

/** The bag a hero draws from, with what is in it now (from `…/state`). */
export function heroBag(t: TableRecord, hero: string): Bag | null {
  return Object.values(bags(t)).find((b) => b.owner === hero) ?? null;
}

/** A bag by its id (`favor`, `time.morning`, `weather.overworld` …), with what is in it now. */
export function bag(t: TableRecord, id: string): Bag | null {
  return bags(t)[id] ?? null;
}

export function roster(t: TableRecord): RosterEntry[] {
  return state(t)?.roster ?? [];
}

export function canUndo(t: TableRecord): number {
  return state(t)?.can_undo ?? 0;
}

export function time(t: TableRecord): TimeBoard | null {
  return t.sections.time;
}

export function fight(t: TableRecord): Fight | null {
  return t.sections.combat;
}

/**
 * What Undo would take back: the engine's own answer (the view's `undo`), the very command the
 * next Undo takes back, in words. A note is never it (Undo skips a note). Null when nothing can be
 * undone, or before the table's state has arrived.
 */
export function undoTarget(t: TableRecord): { cmd: string; text: string } | null {
  return state(t)?.undo ?? null;
}

/** The names a generated form offers for a field, by the field's name. */
export function choices(t: TableRecord | undefined): Choices {
  if (!t) return {};
  const hs = heroes(t).map((h) => [h.id, h.name] as const);
  const fighters = roster(t).map((c) => [c.id, c.name] as const);
  const tokens: (readonly [string, string])[] = [];
  for (const bag of Object.values(bags(t))) {
    for (const tok of bag.tokens ?? []) tokens.push([tok.id, `${tok.name} · ${bag.name}`]);
  }
  const drawn: (readonly [string, string])[] = [];
  for (const c of performance(t)?.contributions ?? []) {
    for (const d of c.drawn) drawn.push([d.id, `${d.name} (${c.name})`]);
  }
  const capabilities = new Set<string>();
  for (const h of heroes(t)) for (const k of Object.keys(h.training)) capabilities.add(k);
  const prompts = (time(t)?.prompts ?? []).map(
    (p) => [String(p.id), `${p.id}: ${p.text}`] as const,
  );
  const terms = state(t)?.combat_terms ?? { injuries: [], conditions: [] };
  const named = (xs: string[]) => xs.map((x) => [x, x] as const);
  return {
    type: named(terms.injuries),
    injury: named(terms.injuries),
    condition: named(terms.conditions),
    hero: hs,
    intersect: hs,
    watch: hs,
    combatant: fighters,
    target: fighters,
    combatants: fighters,
    token: tokens,
    replace: drawn,
    capability: [...capabilities].sort().map((c) => [c, c] as const),
    prompt: prompts,
  };
}

/**
 * What a reply is keyed to (ui.ts, Outlets): the open Performance's number and each section's
 * fingerprint as published. `…/bags` carries what is in the bags: a token drawn or the weather
 * drawn changes the table's mark even where the section's own payload is the same.
 */
export function marks(t: TableRecord | undefined): Marks {
  const s = t?.sections;
  const fp = (...xs: unknown[]) => JSON.stringify(xs);
  const inBags = t ? bags(t) : null;
  return {
    performance: s?.performance?.number ?? null,
    sections: {
      performance: fp(s?.performance ?? null, inBags),
      time: fp(s?.time ?? null, inBags),
      combat: fp(s?.combat ? { ...s.combat, forecast: null } : null, s?.state?.roster ?? null),
      table: fp(s?.performance ?? null, s?.time ?? null, s?.combat ?? null, s?.state ?? null),
    },
  };
}
