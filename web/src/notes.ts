/**
 * A table's latest public note (`note "…" --audience public`, I-T13: gm.html's "Public
 * (stream, wall)"), for the pages a stream or a hall sees: one line on the overlay and on the
 * table's card of the wall, for NOTE_SHOWN_MS after the table took it, then gone.
 *
 * Only a note whose `audience` is `public` (`readable`, by that field, never by its words): a
 * worldkeeper-only note never reaches a public login at all (it goes whole to `…/gm_events`,
 * and `…/events` carries a wordless `withheld` stand-in: issue 42 item 4), and a `table` note
 * is the table display's. Where it comes from: the event stream (`…/events`, a `note` event),
 * and, on a page that follows it (the wall), the retained `…/history` (a row of the `note`
 * command), so a note taken just before the page opened still shows its remaining time. Its
 * time is the service's own stamp, corrected by the clock offset the page learnt (as a table's
 * age is: model.ts `lastChange`), so a page opened late, or a browser clock off, neither
 * shows an old note nor cuts a new one short.
 */

import { h, setText } from "./dom";
import { INFO_BEAT_MS, readable } from "./model";
import type { TableRecord } from "./store";

/** How long a public note stays up on the overlay and the wall (ms): 3 minutes. */
export const NOTE_SHOWN_MS = 3 * 60_000;

export interface PublicNote {
  /** the note's event `seq` (its journal row) */
  seq: number;
  /** the service's words for it ("Note: the bridge holds") */
  text: string;
  /** when the table took it, on this page's clock (ms since the epoch) */
  at: number;
}

/** The service's clock less this page's (ms): a live `…/info`'s, else the retained one's
 *  nearest 0 within its beat (model.ts `guessedOffset`), else 0 (the clocks taken as one). */
function offset(t: TableRecord): number {
  if (t.clockOffset !== null) return t.clockOffset;
  if (t.clockGuess === null || t.status === "offline") return 0;
  const low = t.clockGuess;
  return low > 0 ? low : Math.min(low + INFO_BEAT_MS + 1000, 0);
}

/** The table's newest public note while it is recent (NOTE_SHOWN_MS), else null. */
export function publicNote(
  t: TableRecord | undefined,
  now: number,
  shownMs: number = NOTE_SHOWN_MS,
): PublicNote | null {
  if (!t) return null;
  let best: { seq: number; text: string; stamp: number } | null = null;
  for (let i = t.events.length - 1; i >= 0; i--) {
    const e = t.events[i];
    if (e?.type !== "note" || !readable(e.audience, "public")) continue;
    best = { seq: e.seq, text: e.text, stamp: Date.parse(e.at) };
    break;
  }
  const rows = t.sections.history?.entries ?? [];
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i];
    if (row?.command.split(" ")[0] !== "note") continue;
    // the row's words a public page may read: a worldkeeper note's are not on `…/history`
    // at all, a table note's are, marked `table`
    const said = row.events.findIndex((_, k) => readable(row.audiences[k], "public"));
    if (said < 0) continue;
    if (!best || row.seq > best.seq)
      best = { seq: row.seq, text: row.events[said] ?? "", stamp: row.at * 1000 };
    break;
  }
  if (!best || !Number.isFinite(best.stamp) || !best.text.trim()) return null;
  const at = best.stamp - offset(t);
  if (now - at >= shownMs) return null;
  return { seq: best.seq, text: best.text.trim(), at };
}

/** The note line's look: the theme's panel and text, a line at the top centre under the
 *  refusal's. `:where()` weighs nothing: a page's own rule for `.public-note` wins. */
const LOOK = `:where(.public-note) {
  position: fixed; top: 3.2rem; left: 50%; transform: translateX(-50%);
  max-width: min(60rem, 90vw); margin: 0; padding: 0.25rem 0.8rem; border-radius: 0.4rem;
  border-left: 0.3rem solid var(--accent); background: var(--panel); color: var(--fg);
  font-size: 1.5rem; overflow-wrap: anywhere; z-index: 5;
}`;

/**
 * The overlay's note line: a `p.public-note` of `parent` (made at the first call, with its
 * look), the table's public note while it is recent, hidden otherwise.
 */
export function renderNote(parent: HTMLElement, t: TableRecord | undefined, now: number): void {
  let el = parent.querySelector<HTMLElement>(":scope > .public-note");
  if (!el) {
    document.head.append(h("style", { "data-for": "public-note" }, LOOK));
    el = h("p", { class: "public-note", role: "status", hidden: true });
    parent.append(el);
  }
  const note = publicNote(t, now);
  el.hidden = note === null;
  el.dataset.seq = note ? String(note.seq) : "";
  setText(el, note?.text ?? "", false);
}
