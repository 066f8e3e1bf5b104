/**
 * The stream overlays' switches (issue 42 item 1): the WorldKeeper's, set on gm.html and kept
 * retained on the broker (`…/overlay`, docs/overlay.schema.json, as Zigbee2MQTT's frontend
 * keeps its settings), followed by every open overlay within a second, without a reload.
 *
 * - `card`: "on" (the default), the roll card while there is something to show; "off", never;
 * - `hold`: true, the outcome that is up stays up until released (the others wait, none is
 *   dropped: alerts.ts);
 * - `skip`: a count of Skip presses; an overlay that hears it change live takes the outcome
 *   that is up down at once (a retained copy replayed at subscribe acts on nothing).
 *
 * No retained message means the defaults: the service publishes none. A payload that is not
 * one of these is ignored with the defaults kept, and the reason said (the overlay's console,
 * gm.html's line). The overlay's own URL wins for that overlay: `card=` over `card`,
 * `alerts=` over `hold` and `skip` (docs/web.md).
 */

import type { OverlaySettings } from "./generated/overlay";

export type { OverlaySettings };

/** what no retained message (or a bad one) means */
export const OVERLAY_DEFAULTS: OverlaySettings = { card: "on", hold: false, skip: 0 };

const KEYS = ["card", "hold", "skip"] as const;

/** The switches in a payload of `…/overlay`, or why they are not (then the defaults hold). */
export function readOverlaySettings(
  data: unknown,
): { settings: OverlaySettings; problem: null } | { settings: null; problem: string } {
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return { settings: null, problem: "not a JSON object" };
  const o = data as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (extra.length) return { settings: null, problem: `unknown key ${extra.join(", ")}` };
  const missing = KEYS.filter((k) => !(k in o));
  if (missing.length) return { settings: null, problem: `no ${missing.join(", ")}` };
  if (o.card !== "on" && o.card !== "off")
    return { settings: null, problem: `card is ${JSON.stringify(o.card)}, not "on" or "off"` };
  if (typeof o.hold !== "boolean")
    return { settings: null, problem: `hold is ${JSON.stringify(o.hold)}, not true or false` };
  if (typeof o.skip !== "number" || !Number.isInteger(o.skip) || o.skip < 0)
    return {
      settings: null,
      problem: `skip is ${JSON.stringify(o.skip)}, not a count (0 or more)`,
    };
  return { settings: { card: o.card, hold: o.hold, skip: o.skip }, problem: null };
}

/** What a page knows of `…/overlay` (store.ts keeps it per table). */
export interface OnAir {
  /** the retained switches, null: none (the defaults), or a bad payload (`problem`) */
  readonly settings: OverlaySettings | null;
  /** why the newest payload was ignored, null: it was good (or none came) */
  readonly problem: string | null;
  /** the newest good `skip` heard (0 before any): what a live change is measured from */
  readonly skipSeen: number;
  /** how many live changes of `skip` this page heard: one Skip each */
  readonly skips: number;
  /** a payload (or the cleared topic) has arrived since the page subscribed */
  readonly heard: boolean;
}

export const NO_ON_AIR: OnAir = {
  settings: null,
  problem: null,
  skipSeen: 0,
  skips: 0,
  heard: false,
};

/** `was` after one message of `…/overlay` (`data`: its JSON, null: the topic cleared; a
 *  retained copy replayed at subscribe sets the switches and skips nothing). */
export function heardOnAir(was: OnAir, data: unknown, retained: boolean): OnAir {
  if (data === null) return { ...was, settings: null, problem: null, heard: true };
  const read = readOverlaySettings(data);
  if (read.settings === null) return { ...was, settings: null, problem: read.problem, heard: true };
  const skip = read.settings.skip;
  const pressed = !retained && skip !== was.skipSeen;
  return {
    settings: read.settings,
    problem: null,
    skipSeen: skip,
    skips: was.skips + (pressed ? 1 : 0),
    heard: true,
  };
}

/** A payload that was not JSON at all: ignored, the defaults kept. */
export function unreadableOnAir(was: OnAir): OnAir {
  return { ...was, settings: null, problem: "not JSON", heard: true };
}

/** The overlay's own switches from its URL (`card=`, `alerts=`): null where it gives none. */
export interface UrlSwitches {
  card: "on" | "off" | null;
  alerts: "hold" | "skip" | null;
}

/** What one overlay does: its URL's switches where given, else the WorldKeeper's. */
export interface Effective {
  card: "on" | "off";
  /** "skip": no outcome goes up on the card (the URL's `alerts=skip`) */
  alerts: "hold" | "skip";
  /** the outcome that is up stays up (the WorldKeeper's Hold; never with `alerts=` given) */
  hold: boolean;
  /** the WorldKeeper's Skip reaches this overlay (not with `alerts=` given) */
  skips: boolean;
}

export function effective(url: UrlSwitches, settings: OverlaySettings | null): Effective {
  const s = settings ?? OVERLAY_DEFAULTS;
  return {
    card: url.card ?? s.card,
    alerts: url.alerts ?? "hold",
    hold: url.alerts === null && s.hold,
    skips: url.alerts === null,
  };
}
