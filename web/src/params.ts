/**
 * A page's settings, from its URL: `overlay.html?table=kitchen#broker=ws://pi.local:9001&username=…&password=…`.
 *
 * Every page reads the same parameters (docs/web.md lists them) from the query and from the
 * fragment (`#…`), the fragment winning; unknown ones are ignored and a bad value falls back to
 * the default, so a typo in an OBS URL never leaves a blank source. The login belongs in the
 * fragment: a browser never sends it to a server, so no server logs it and no Referer carries
 * it. The old form (`?username=…&password=…`) still works, with a console warning; either way
 * the login is taken out of the address bar once read (`takeLogin`), so a stream that shows
 * the page's address never shows the password.
 */

export type Theme = "stream" | "dark" | "light" | "contrast";
const THEMES: readonly Theme[] = ["stream", "dark", "light", "contrast"];

export interface PageParams {
  /** the broker's WebSocket URL */
  broker: string;
  /** false: the URL named no broker, `broker` is the guess `defaultBroker` makes */
  brokerGiven: boolean;
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

type Where = Pick<Location, "protocol" | "host" | "search" | "hash">;

/** The login's parameters: in the fragment, and out of the address bar once read. */
export const LOGIN_KEYS: readonly string[] = ["username", "user", "password"];

/** The fragment's `&`-separated parts (`#time&username=…` → `["time", "username=…"]`). */
function fragmentParts(hash: string): string[] {
  return hash.replace(/^#/, "").split("&").filter(Boolean);
}

/** The query's and the fragment's parameters together, the fragment's winning. */
export function urlParams(loc: Pick<Location, "search" | "hash">): URLSearchParams {
  const all = new URLSearchParams(loc.search);
  for (const [k, v] of new URLSearchParams(fragmentParts(loc.hash).join("&"))) all.set(k, v);
  return all;
}

/** The broker's WebSocket URL a page at `loc` uses (its `broker` parameter, or the default). */
export function brokerUrl(loc: Where): string {
  return urlParams(loc).get("broker") || defaultBroker(loc);
}

/** A part of the fragment that is not `key=value` (gm.html's tab: `#time`), or null. */
export function fragmentWord(hash: string): string | null {
  return fragmentParts(hash).find((p) => !p.includes("=")) ?? null;
}

/** `hash` with its word (see `fragmentWord`) set to `word`, its parameters kept. */
export function withFragmentWord(hash: string, word: string): string {
  return `#${[word, ...fragmentParts(hash).filter((p) => p.includes("="))].join("&")}`;
}

export interface Login {
  username: string | null;
  password: string | null;
  /** the login was in the query (sent to the server): the page warned */
  fromQuery: boolean;
  /** there was a login in the address (query or fragment) */
  found: boolean;
  /** the address without the login, as put in the address bar */
  cleaned: string;
}

/**
 * The login in `url` (the fragment's, else the query's), and `url` without it. A login in the
 * query is still accepted, with a warning on the console: the browser sent it to the server.
 */
export function readLogin(url: string, warn: (message: string) => void = () => {}): Login {
  const u = new URL(url);
  const query = new URLSearchParams(u.search);
  const fragment = new URLSearchParams(fragmentParts(u.hash).join("&"));
  const pick = (keys: string[]) => {
    for (const from of [fragment, query]) {
      for (const k of keys) {
        const v = from.get(k);
        if (v) return v;
      }
    }
    return null;
  };
  const username = pick(["username", "user"]);
  const password = pick(["password"]);
  const fromQuery = LOGIN_KEYS.some((k) => query.has(k));
  if (fromQuery) {
    warn(
      "rhuna: the login is in the URL's query (?username=…&password=…), which the browser " +
        "sends to the server (its log, any proxy's); put it in the fragment instead: " +
        "#username=…&password=… (`rhuna-table accounts urls` prints it so)",
    );
  }
  for (const k of LOGIN_KEYS) query.delete(k);
  const kept = fragmentParts(u.hash).filter((p) => !LOGIN_KEYS.includes(p.split("=")[0] ?? ""));
  const found = fromQuery || kept.length !== fragmentParts(u.hash).length;
  const search = query.toString();
  const cleaned = found
    ? `${u.pathname}${search ? `?${search}` : ""}${kept.length ? `#${kept.join("&")}` : ""}`
    : `${u.pathname}${u.search}${u.hash}`;
  return {
    username,
    password,
    fromQuery,
    found,
    cleaned,
  };
}

const LOGIN_STORE = "rhuna:login";

/**
 * The page's login, taken from its address (which is then shown without it: `history.replaceState`),
 * or, after a reload of this tab, from the tab's own `sessionStorage` (gone when the tab closes).
 */
export function takeLogin(): { username: string | null; password: string | null } {
  const login = readLogin(location.href, (m) => console.warn(m));
  if (login.found) {
    try {
      sessionStorage.setItem(LOGIN_STORE, JSON.stringify([login.username, login.password]));
    } catch {
      // no storage (a private window's quota): a reload then needs the URL again
    }
    history.replaceState(history.state, "", login.cleaned);
    return login;
  }
  try {
    const kept = JSON.parse(sessionStorage.getItem(LOGIN_STORE) ?? "null");
    if (Array.isArray(kept)) return { username: kept[0] ?? null, password: kept[1] ?? null };
  } catch {
    // nothing kept
  }
  return { username: null, password: null };
}

function number(raw: string | null, fallback: number, min: number, max: number): number {
  if (raw === null || raw.trim() === "") return fallback;
  const n = Number(raw);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

/** The page's settings; the login is `login`'s (see `takeLogin`), not read here. */
export function readParams(
  loc: Where,
  defaults: { table: string; theme: Theme },
  login: { username: string | null; password: string | null },
): PageParams {
  const q = urlParams(loc);
  const theme = q.get("theme") as Theme | null;
  const panels = q.get("panels");
  return {
    broker: brokerUrl(loc),
    brokerGiven: Boolean(q.get("broker")),
    table: q.get("table") || defaults.table,
    base: q.get("base") || "rhuna",
    username: login.username,
    password: login.password,
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
