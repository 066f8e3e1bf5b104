/**
 * The payloads the service publishes (docs/mqtt.md), typed: the only file that names their keys.
 *
 * Written by hand from docs/mqtt.md and `engine/view.py` until the service publishes JSON
 * Schemas of its topics (issue 18); then these types are generated from them at build time, so
 * a renamed key breaks `tsc`. Pages never read a payload directly: `model.ts` turns these into
 * what the pages show, and it is the one place to change when a key moves.
 */

export type Status = "online" | "offline";

export interface Hero {
  id: string;
  name: string;
  fatigue: number;
  fatigue_capacity: number;
  strain: number;
  strain_capacity: number;
  wounds: number;
  favor: number;
  redraws: number;
  training: Record<string, string>;
  pathways: string[];
  active_reserve: unknown[];
  bag_count: number;
}

export interface DrawnToken {
  id: string;
  name: string;
  kind: string;
  shade: string | null;
  weight: number | null;
  value: number;
}

export interface Contribution {
  hero: string;
  name: string;
  shade: string;
  capability: string;
  action: string;
  training: string;
  exert: boolean;
  moment: string | null;
  intersect: string | null;
  allowed: number;
  draws_left: number;
  pending_redraw: unknown;
  drawn: DrawnToken[];
  favor: DrawnToken[];
  set_aside: DrawnToken[];
  total: number;
}

export interface GroupResult {
  heroes: string[];
  total: number;
  difficulty: number;
  success: boolean;
}

export interface Performance {
  number: number;
  difficulty: number;
  weight: string;
  resolved: boolean;
  groups: string[][];
  contributions: Contribution[];
  results: GroupResult[];
}

export interface Chance {
  num: number;
  den: number;
  percent: number;
}

export interface Advice {
  text: string;
  action: string;
  hero: string | null;
  token: string | null;
  /** the chance if this move is made now and best play follows (docs/odds.md) */
  best_play: Chance;
  command: Record<string, unknown> | null;
}

export interface OddsGroup {
  heroes: string[];
  difficulty: number;
  /** the headline: the Redraws and Favor left used well (docs/odds.md) */
  best_play: Chance;
  /** the secondary figure: no more choices */
  as_drawn: Chance;
  /** best first: [0] the best next move, [1] the runner-up */
  advice: Advice[];
  distribution: [number, number][];
  expected_fatigue: number;
  expected_strain: number;
  expected_wounds: number;
}

export interface Odds {
  groups: OddsGroup[];
}

export interface Weather {
  bag: string;
  token: string;
  name: string;
}

export interface TimeBoard {
  day: number;
  band: string;
  minor_done: number;
  due: string;
  weather: Weather | null;
  rest: unknown;
  temporary: unknown[];
  last: unknown;
  prompts: unknown[];
}

export interface Combatant {
  id: string;
  name: string;
  side: string;
  tick: number;
  round: number;
  initiative: number;
  injuries: number;
  death_limit: number;
  conditions: unknown[];
  guarding: boolean;
  dead: boolean;
  can_act: boolean;
}

export interface Forecast {
  attacker: string;
  target: string;
  target_name: string;
  damage: number;
  expected_injuries: number;
  death: number;
  aim_bonus: number;
  guard: number;
}

export interface Combat {
  fight: number;
  round: number;
  tick: number;
  acting: string[];
  wheel: Record<string, string[]>;
  combatants: Combatant[];
  forecast: Forecast[];
}

/** `…/state`: the whole table in one message. */
export interface TableView {
  table: string;
  heroes: Record<string, Hero>;
  performance: Performance | null;
  odds: Odds | null;
  time: TimeBoard | null;
  combat: Combat | null;
  can_undo: number;
}

/** `…/events`: one engine event in the bridge's envelope; the event's own fields vary by type. */
export interface EventMessage {
  seq: number;
  type: string;
  text: string;
  source: string;
  at: string;
  [field: string]: unknown;
}

/** `…/error`: a refused command or an unknown tag. */
export interface ErrorMessage {
  code: string;
  message: string;
  rule?: string;
  field?: string;
  fix?: string;
  source: string;
  at: string;
}

/** `…/reply`: the envelope every command received on MQTT gets back. */
export interface Reply {
  status: "ok" | "error";
  transaction?: unknown;
  data: { command?: Record<string, unknown> | null; events?: EventMessage[] };
  error?: { code: string; message: string; rule?: string; field?: string; fix?: string };
}

/** `…/costs`: what the open Performance has cost each hero (P13–P15), by hero id. */
export interface HeroCost {
  fatigue: number;
  fatigue_overflows: number;
  chained_wounds: number;
  strain: number;
  strain_overflows: number;
  wounds: number;
  /** the service's words: "+2 Fatigue → 1 Strain" */
  text: string[];
}
export type Costs = Record<string, HeroCost>;

/** One narrated journal entry of `…/history` (`rhuna-table history --json`). */
export interface HistoryEntry {
  seq: number;
  at: number;
  time: string;
  source: string;
  command: string;
  events: string[];
}

/** The last ended session's recap (`rhuna-table export`, docs/record.md). */
export interface Recap {
  session: string;
  file: string;
  href: string;
}

/** `…/history`: the newest journal entries, oldest first, and the last session's recap. */
export interface History {
  entries: HistoryEntry[];
  recap?: Recap | null;
}

/** The retained state topics under `rhuna/<table>/`, by their last topic level. */
export interface Sections {
  performance: Performance | null;
  odds: Odds | null;
  time: TimeBoard | null;
  combat: Combat | null;
  costs: Costs | null;
  history: History | null;
  /** `…/state`, when the page follows it (ConnectionOptions.sections) */
  state?: TableView | null;
}

export const SECTION_NAMES = ["performance", "odds", "time", "combat", "costs", "history"] as const;
/** `state` (the whole table in one message) only for pages that ask for it: the remote */
export type SectionName = (typeof SECTION_NAMES)[number] | "state";
