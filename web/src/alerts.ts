/**
 * The stream's alert queue for outcomes (issue 42 item 3), as StreamElements and Streamlabs
 * queue their alerts: every outcome the page saw is shown, in the order it came, one at a time,
 * each up at least `ALERT_MIN_MS`. A queue longer than `ALERT_QUEUE_N` is caught up by showing
 * the waiting ones for the floor only (faster), never by skipping one. Each outcome, as it goes
 * up, is also a DOM event a stream tool can take (`rhuna:outcome`, docs/web.md).
 */

import type { OutcomeView } from "./model";

/** the floor: no outcome is up for less (ms) */
export const ALERT_MIN_MS = 4000;
/** how long an outcome is up while the queue behind it is short (ms) */
export const ALERT_HOLD_MS = 6000;
/** a queue with more than this many waiting shows each for the floor only */
export const ALERT_QUEUE_N = 2;

/** The detail of the `rhuna:outcome` event (window), documented in docs/web.md. */
export interface OutcomeAlert {
  /** the page that showed it ("overlay", "director") and the table it is of */
  page: string;
  table: string;
  /** which Performance and group: unique for the night, the queue's key */
  key: string;
  performance: number;
  /** the hero or heroes, as named on the card: "Aria", or "Aria + Bren" for an Intersect */
  heroes: string;
  success: boolean;
  verdict: "SUCCESS" | "FAILURE";
  total: number;
  difficulty: number;
  /** the best-play percent the page saw published before the resolution, null: none seen */
  percent: number | null;
  /** how many outcomes wait behind this one */
  waiting: number;
}

export const OUTCOME_EVENT = "rhuna:outcome";

export class AlertQueue {
  private shown: { o: OutcomeView; since: number } | null = null;
  private waiting: OutcomeView[] = [];
  private seen = new Set<string>();

  constructor(
    private readonly onShow: ((o: OutcomeView, waiting: number) => void) | null = null,
    private readonly minMs = ALERT_MIN_MS,
    private readonly holdMs = ALERT_HOLD_MS,
  ) {}

  /** What is up at `now`: one outcome, or none. `seen` is every outcome the page has seen
   *  (the store keeps each as its state arrives, `model.outcomesSeen`), so one resolved and
   *  moved past between two paints still goes up; `current` is those the table's state holds
   *  now. The last one stays up after the service moved on until its time is out. `hold`
   *  (the WorldKeeper's Hold, ./onair.ts): the one that is up stays up, however long, and the
   *  ones behind it wait; released, it goes once its time is out (at once if it is). */
  next(seen: OutcomeView[], current: OutcomeView[], now: number, hold = false): OutcomeView[] {
    for (const o of [...seen, ...current]) {
      if (this.seen.has(o.key)) continue;
      this.seen.add(o.key);
      this.waiting.push(o);
    }
    if (this.shown) {
      const up = now - this.shown.since;
      const key = this.shown.o.key;
      // with others waiting: its hold (the floor once the queue is long); alone: until its
      // Performance is gone from the table, and the floor at least
      const done = this.waiting.length
        ? up >= (this.waiting.length > ALERT_QUEUE_N ? this.minMs : this.holdMs)
        : up >= this.minMs && !current.some((c) => c.key === key);
      if (done && !hold) this.shown = null;
    }
    if (!this.shown) {
      const o = this.waiting.shift();
      if (o) {
        this.shown = { o, since: now };
        this.onShow?.(o, this.waiting.length);
      }
    }
    return this.shown ? [this.shown.o] : [];
  }

  /** The WorldKeeper's Skip: the outcome that is up goes now (its event went out when it went
   *  up); the next one waiting goes up at the next `next`. Nothing up: nothing to skip.
   *  Returns whether one was taken down. */
  skip(): boolean {
    const up = this.shown !== null;
    this.shown = null;
    return up;
  }

  /** the outcome up on the card now, if any (its key) */
  get up(): string | null {
    return this.shown?.o.key ?? null;
  }

  /** Take these as already shown (a director that puts another table on air: its outcomes
   *  from before are not news, only the ones still on its table and those after). */
  pass(outcomes: OutcomeView[]): void {
    for (const o of outcomes) this.seen.add(o.key);
  }

  /** how many outcomes wait (for tests and the status of a page) */
  get backlog(): number {
    return this.waiting.length;
  }
}

/** `rhuna:outcome` on `window` for the outcome going up (a stream tool's sound or alert). */
export function dispatchOutcome(page: string, table: string, o: OutcomeView, waiting: number) {
  const detail: OutcomeAlert = {
    page,
    table,
    key: o.key,
    performance: o.performance,
    heroes: o.heroes,
    success: o.success,
    verdict: o.success ? "SUCCESS" : "FAILURE",
    total: o.total,
    difficulty: o.difficulty,
    percent: o.shot?.percent ?? null,
    waiting,
  };
  window.dispatchEvent(new CustomEvent<OutcomeAlert>(OUTCOME_EVENT, { detail }));
}
