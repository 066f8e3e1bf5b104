/**
 * gm.html's On air switches (issue 42 item 1), in the footer beside Undo, on every tab: the
 * stream overlays' roll card shown or hidden, the outcome that is up held until released, and
 * Skip (the outcome that is up goes now). They are the WorldKeeper's, kept retained on the
 * broker (`…/overlay`, ../onair.ts), never a command: no journal, and Undo never takes them
 * back.
 *
 * What the buttons say is what the broker holds: the switches as the retained topic comes
 * back, never what this page last sent. While a change is on its way they say so; a change the
 * broker refused, or that never came back, is said in words under them.
 */

import type { Connection } from "../connection";
import { byId } from "../dom";
import { OVERLAY_DEFAULTS, type OverlaySettings } from "../onair";
import type { TableRecord } from "../store";

/** how long a change may take to come back from the broker before the page says so (ms) */
const BACK_WITHIN_MS = 5000;

interface Sent {
  settings: OverlaySettings;
  at: number;
}

let sent: Sent | null = null;
/** a refusal or a change that never came back, in words; null: nothing to say */
let said: string | null = null;

const same = (a: OverlaySettings | null, b: OverlaySettings): boolean =>
  a !== null && a.card === b.card && a.hold === b.hold && a.skip === b.skip;

/** The switches as the broker holds them (null: not known yet: the retained copies have not
 *  all come), the defaults where it holds none or a bad one. */
function held(t: TableRecord | undefined): OverlaySettings | null {
  if (!t || (!t.onAir.heard && t.status === "unknown")) return null;
  return t.onAir.settings ?? OVERLAY_DEFAULTS;
}

/** Wire the footer's three buttons to `connection` (once); `repaint` paints them again. */
export function wireOnAir(
  connection: Connection,
  table: () => TableRecord | undefined,
  repaint: () => void,
): void {
  const send = (change: (now: OverlaySettings) => OverlaySettings) => {
    const now = held(table());
    if (now === null || sent !== null) return;
    const next = change(now);
    sent = { settings: next, at: Date.now() };
    said = null;
    repaint();
    connection.setOnAir(next).then(
      () => {
        // taken: the broker sends it back (the retained copy), and the buttons follow then
        setTimeout(repaint, BACK_WITHIN_MS);
      },
      (err: Error) => {
        sent = null;
        said = `✗ the broker refused the switch: this login may not set the overlays (${err.message})`;
        repaint();
      },
    );
  };
  byId("onair-card").addEventListener("click", () =>
    send((s) => ({ ...s, card: s.card === "on" ? "off" : "on" })),
  );
  byId("onair-hold").addEventListener("click", () => send((s) => ({ ...s, hold: !s.hold })));
  byId("onair-skip").addEventListener("click", () => send((s) => ({ ...s, skip: s.skip + 1 })));
}

/** Paint the switches from what the broker holds (`t.onAir`), and what is on its way. */
export function renderOnAir(t: TableRecord | undefined, now: number): void {
  const box = byId("onair");
  const card = byId("onair-card") as HTMLButtonElement;
  const hold = byId("onair-hold") as HTMLButtonElement;
  const skip = byId("onair-skip") as HTMLButtonElement;
  const line = byId("onair-said");
  const s = held(t);
  if (sent && same(s, sent.settings)) sent = null; // it came back: the broker holds it
  if (sent && now - sent.at > BACK_WITHIN_MS) {
    sent = null;
    said = "✗ the switch did not come back from the broker: the overlays may not have it";
  }
  const busy = s === null || sent !== null;
  box.setAttribute("aria-busy", String(busy));
  box.dataset.card = s?.card ?? "";
  box.dataset.hold = s === null ? "" : String(s.hold);
  box.dataset.skip = s === null ? "" : String(s.skip);
  card.setAttribute("aria-pressed", String(s?.card !== "off"));
  card.textContent = s?.card === "off" ? "Card off" : "Card on";
  card.title =
    s?.card === "off"
      ? "the overlays show no roll card (an overlay's own card= wins): tap to show it"
      : "the overlays show the roll card while there is a Performance or an outcome: tap to hide it";
  hold.setAttribute("aria-pressed", String(s?.hold === true));
  hold.textContent = s?.hold ? "Release" : "Hold alert";
  hold.title = s?.hold
    ? "the outcome up on the overlays stays up: tap to let the queue go on"
    : "keep the outcome that is up on the overlays until released";
  skip.title = "take the outcome that is up on the overlays down now (the next one goes up)";
  for (const b of [card, hold, skip]) b.disabled = busy;
  const problem = t?.onAir.problem
    ? `the overlays' switches on the broker are not valid (${t.onAir.problem}): the overlays keep their defaults`
    : null;
  const text = sent ? "setting the overlays…" : (said ?? problem ?? "");
  if (line.textContent !== text) line.textContent = text;
  line.hidden = text === "";
}
