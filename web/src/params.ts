/**
 * A page's settings, from its URL: `overlay.html?broker=ws://pi.local:9001&table=kitchen&…`.
 *
 * Every page reads the same parameters (docs/web.md lists them); unknown ones are ignored and a
 * bad value falls back to the default, so a typo in an OBS URL never leaves a blank source.
 */

export type Theme = "stream" | "dark" | "light" | "contrast";
const THEMES: readonly Theme[] = ["stream", "dark", "light", "contrast"];

export interface PageParams {
  /** the broker's WebSocket URL */
  broker: string;
  /** table id (`rhuna/<table>/…`); "+" on the wall: every table */
  table: string;
  base: string;
  username: string | null;
  password: string | null;
  theme: Theme;
  /** text size factor, 0.5–4 */
  scale: number;
  /** the panels to show (page-specific names); null: the page's default set */
  panels: string[] | null;
  /** reveal delay in ms: hold every change back this long (to match a stream's delay) */
  delay: number;
  layout: "wide" | "narrow";
  /** false: no animation, whatever the system says (`prefers-reduced-motion` is always obeyed) */
  motion: boolean;
  /** how many draws and outcomes the table display lists */
  last: number;
  /** false (`status=off`): no status line on screen (it is still read out to a screen reader) */
  status: boolean;
}

/** Where the page most likely finds the broker: the websockets listener that served it. */
export function defaultBroker(loc: Pick<Location, "protocol" | "host">): string {
  if (loc.protocol === "http:" || loc.protocol === "https:") {
    return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}/`;
  }
  return "ws://localhost:9001/";
}

/** The broker's WebSocket URL a page at `search` uses (its `broker` parameter, or the default). */
export function brokerUrl(search: string, loc: Pick<Location, "protocol" | "host">): string {
  return new URLSearchParams(search).get("broker") || defaultBroker(loc);
}

function number(raw: string | null, fallback: number, min: number, max: number): number {
  if (raw === null || raw.trim() === "") return fallback;
  const n = Number(raw);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

export function readParams(
  search: string,
  loc: Pick<Location, "protocol" | "host">,
  defaults: { table: string; theme: Theme },
): PageParams {
  const q = new URLSearchParams(search);
  const theme = q.get("theme") as Theme | null;
  const panels = q.get("panels");
  return {
    broker: brokerUrl(search, loc),
    table: q.get("table") || defaults.table,
    base: q.get("base") || "rhuna",
    username: q.get("username") || q.get("user"),
    password: q.get("password"),
    theme: theme && THEMES.includes(theme) ? theme : defaults.theme,
    scale: number(q.get("scale"), 1, 0.5, 4),
    panels: panels
      ? panels
          .split(",")
          .map((p) => p.trim())
          .filter(Boolean)
      : null,
    delay: number(q.get("delay"), 0, 0, 60_000),
    layout: q.get("layout") === "narrow" ? "narrow" : "wide",
    motion: q.get("motion") !== "off",
    last: Math.round(number(q.get("last"), 12, 1, 200)),
    status: q.get("status") !== "off",
  };
}
