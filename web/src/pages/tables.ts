/**
 * tables.html: the convention wall. Every table on the broker (`rhuna/+/status` and each
 * table's retained Performance), with online/offline, its current Performance and last outcome.
 * At a venue broker (docs/convention.md) `roster=tables.json` (the file `rhuna-table venue`
 * writes, served beside the page) lists every table, heard from or not, with its name, and each
 * card shows its uplink (`rhuna/uplink/<table>`): "offline (uplink)" when its bridge is down.
 */

import { boot } from "../app";
import { byId, h, setText } from "../dom";
import {
  ageText,
  combat,
  FEATURED_MS,
  FeaturedPicker,
  linkLabel,
  type PerformanceView,
  performance,
  readable,
  type WallCard,
  wallCard,
} from "../model";
import { publicNote } from "../notes";
import { urlParams } from "../params";
import type { TableRecord } from "../store";
import { emptyTable } from "../store";

/** The most cards one screen shows (two columns of three): each table's name and figures in
 *  type read across a hall (docs/web.md, "A wall for a hall"); beyond it, pages turn (every
 *  15 s unless `rotate=`), by the clock. */
export const PER_PAGE = 6;
const ROTATE_S = 15;

/** `rotate=` (seconds between pages, at least 1; `off` or `0` holds one page) and `page=` (the
 * page held, 1-based, when rotation is off), read like the other parameters: the query, then
 * the fragment, the fragment winning. A bad value is named on the wall and the default kept. */
export function rotation(
  search: string,
  hash: string,
): {
  ms: number | null;
  page: number;
  problem: string | null;
} {
  const q = new URLSearchParams(search);
  for (const [k, v] of new URLSearchParams(hash.replace(/^#/, ""))) q.set(k, v);
  const problems: string[] = [];
  let ms: number | null = ROTATE_S * 1000;
  const r = q.get("rotate")?.trim().toLowerCase();
  if (r === "off" || r === "0" || r === "no" || r === "false") ms = null;
  else if (r) {
    const s = Number(r);
    if (Number.isFinite(s) && s >= 1) ms = s * 1000;
    else problems.push(`rotate=${r} ignored: give seconds (rotate=15) or rotate=off`);
  }
  let page = 0;
  const p = q.get("page")?.trim();
  if (p) {
    const n = Number(p);
    if (Number.isInteger(n) && n >= 1) page = n - 1;
    else problems.push(`page=${p} ignored: give a page number (page=2)`);
  }
  return { ms, page, problem: problems.length ? problems.join(" · ") : null };
}

const ROTATION = rotation(location.search, location.hash);

/** One table of the venue's roster: its name (null: the table's own, else its id), and what
 *  the organiser put beside it. */
interface Seat {
  name: string | null;
  /** the game run at the table, and who runs it (optional keys of tables.json) */
  game: string | null;
  worldkeeper: string | null;
}

/** The venue's roster (`roster=tables.json`, written by `rhuna-table venue`): every table of
 *  the venue with its name, and its `game` and `worldkeeper` when the file has them. */
const venue: { tables: Map<string, Seat> | null; problem: string | null } = {
  tables: null,
  problem: null,
};
const rosterUrl = urlParams(location).get("roster");
if (rosterUrl)
  fetch(rosterUrl, { cache: "no-store" })
    .then((r) => {
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      return r.json();
    })
    .then((data: unknown) => {
      const list = (data as { tables?: unknown } | null)?.tables;
      if (!Array.isArray(list)) throw new Error("no tables list in it");
      const text = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v : null);
      const out = new Map<string, Seat>();
      for (const t of list as Record<string, unknown>[])
        if (typeof t?.id === "string")
          out.set(t.id, {
            name: text(t.name),
            game: text(t.game),
            worldkeeper: text(t.worldkeeper),
          });
      venue.tables = out;
    })
    .catch((e: unknown) => {
      venue.problem = `roster=${rosterUrl} not read (${e instanceof Error ? e.message : String(e)}): give the venue's tables.json beside this page`;
    });

/** Cards in columns and rows: up to three in one column (a card a row, as wide as the
 *  screen), more in two columns of up to three rows. */
function grid(n: number): { cols: number; rows: number } {
  if (n <= 3) return { cols: 1, rows: Math.max(1, n) };
  return { cols: 2, rows: Math.ceil(n / 2) };
}

/** Each hero's figure once (an Intersect group once, named as the group's), then the
 *  Difficulty they are set against: "Aria 3 · Bren 1 / 5". */
function figureLine(p: PerformanceView): string {
  const out: string[] = [];
  for (const c of p.contributions) {
    const g = p.groups.find((x) => x.key === c.group);
    if (!g) out.push(`${c.heroName} ${c.groupTotal}`);
    else if (g.heroes[0] === c.hero) out.push(`${g.names} ${g.total}`);
  }
  return out.length ? `${out.join(" · ")} / ${p.difficulty}` : `Difficulty ${p.difficulty}`;
}

/** What a card says in its two big lines and its context line. */
interface Face {
  /** the big line of figures: a Performance's totals, a fight's round and who acts, the last
   *  verdict, or (muted) that nothing is open */
  figure: string;
  kind: "performance" | "fight" | "outcome" | "idle";
  /** the line under it: "Performance 3 · Difficulty 5 · Weight light" … */
  context: string;
}

function face(t: TableRecord, c: WallCard): Face {
  const p = performance(t);
  const f = combat(t);
  const fight = f
    ? `Round ${f.round} · ${f.acting.length ? `${f.acting.join(" & ")} ${f.acting.length > 1 ? "act" : "acts"}` : "between turns"}`
    : null;
  if (p && !p.resolved)
    return {
      figure: figureLine(p),
      kind: "performance",
      context: [`Performance ${p.number} · Difficulty ${p.difficulty}`, fight && `Fight: ${fight}`]
        .filter(Boolean)
        .join(" · "),
    };
  if (f && fight)
    return {
      figure: fight,
      kind: "fight",
      context: `Fight ${f.fight}${c.performance ? ` · ${c.performance}` : ""}`,
    };
  if (c.lastOutcome)
    return {
      figure: c.lastOutcome.text,
      kind: "outcome",
      context: p ? `Performance ${p.number} · Difficulty ${p.difficulty}` : "Last outcome",
    };
  return { figure: "Between Performances", kind: "idle", context: "No Performance open" };
}

/** the featured card's pick, across renders: a long shot that came off */
const featured = new FeaturedPicker();
/** Below this best-play chance a success is a long shot, featured (docs/odds.md's tag). */
export const LONG_SHOT = 20;
/** The deaths this page saw happen (`combatant_died`, public): key → when it saw it. */
const deaths = new Map<string, { table: string; name: string; at: number }>();

function fallen(snap: { tables: ReadonlyMap<string, TableRecord> }, now: number) {
  for (const t of snap.tables.values())
    for (const e of t.events)
      if (e.type === "combatant_died" && readable(e.audience, "public")) {
        const key = `${t.id}|${e.seq}`;
        if (deaths.has(key)) continue;
        const who = t.sections.combat?.combatants.find((x) => x.id === e.combatant);
        deaths.set(key, { table: t.id, name: who?.name ?? e.combatant, at: now });
      }
  let last: { table: string; name: string; at: number } | null = null;
  for (const [key, d] of deaths) {
    if (now - d.at > FEATURED_MS) deaths.delete(key);
    else if (!last || d.at >= last.at) last = d;
  }
  return last;
}

/** Every line of the cards in one line, whole: a line wider than its card is set smaller
 *  (never cut, never wrapped), down to a floor. Reads every width first, then writes. */
function fit(root: HTMLElement): void {
  const lines = [...root.querySelectorAll<HTMLElement>(".fit")].filter((e) => !e.hidden);
  const over = lines.map((el) => ({ el, need: el.scrollWidth, room: el.clientWidth }));
  for (const { el, need, room } of over) {
    if (need <= room || room <= 0) continue;
    const px = parseFloat(getComputedStyle(el).fontSize);
    el.style.fontSize = `${Math.max(10, Math.floor(((px * room) / need) * 0.98))}px`;
  }
  // a second pass for the few that rounding left a pixel over
  for (const el of lines)
    if (el.scrollWidth > el.clientWidth) {
      const px = parseFloat(getComputedStyle(el).fontSize);
      el.style.fontSize = `${Math.max(10, Math.floor(px * 0.93))}px`;
    }
}

boot({
  name: "tables",
  reader: "public",
  defaults: { table: "+", theme: "dark" },
  connection: {
    table: "+",
    // the odds too: the featured card is a success whose published odds were a long shot;
    // the combat for a fight's round and who acts
    sections: ["performance", "odds", "combat", "history"],
    heroes: true,
    events: true,
    errors: true, // each table's refusals, on its own card
    uplinks: true, // at a venue: each table's bridge (a table's own broker has none)
  },
  // a venue's hundred tables send a message every few ms: repaint the cards at most 10 times
  // a second (benchmarks/venue.py measures the wall's DOM-update latency with it)
  paintEveryMs: 100,
  render(snap, _ctx, now) {
    const link = byId("status");
    const online = snap.link === "online";
    link.dataset.state = online ? "live" : "offline";
    // every table of the roster has a card, heard from or not: the count says both, so an
    // organiser at 9 a.m. reads "40 tables · 3 not heard yet", never 37 of a 40-table hall
    const roster = venue.tables;
    const records = [...snap.tables.values()];
    if (roster)
      for (const id of roster.keys()) if (!snap.tables.has(id)) records.push(emptyTable(id));
    const unheard = records.length - snap.tables.size;
    const label = online
      ? `${records.length} table${records.length === 1 ? "" : "s"}` +
        (unheard ? ` · ${unheard} not heard yet` : "")
      : linkLabel(snap);
    setText(byId("status-label"), label, false);
    // live tables first, then the rest (offline, stale); each group in a stable order by name,
    // so a card moves only when its table changes group
    const all = records
      .map((t) => ({ t, c: wallCard(snap, t, now) }))
      .sort(
        (a, b) =>
          Number(b.c.live.state === "live") - Number(a.c.live.state === "live") ||
          a.c.id.localeCompare(b.c.id),
      );
    const pages = Math.max(1, Math.ceil(all.length / PER_PAGE));
    // the page from the clock, so every wall in the hall turns together
    const pageNo = (ROTATION.ms === null ? ROTATION.page : Math.floor(now / ROTATION.ms)) % pages;
    const cards = all.slice(pageNo * PER_PAGE, (pageNo + 1) * PER_PAGE);
    const wall = byId("tables");
    const { cols, rows } = grid(cards.length);
    wall.style.setProperty("--cols", String(cols));
    wall.style.setProperty("--rows", String(rows));
    wall.dataset.rows = String(rows);
    const pageEl = byId("wall-page");
    const pageText = pages === 1 ? "" : `page ${pageNo + 1} of ${pages}`;
    const shown = [pageText, ROTATION.problem, venue.problem].filter(Boolean).join(" · ");
    pageEl.hidden = !shown;
    pageEl.dataset.page = String(pageNo + 1);
    pageEl.dataset.pages = String(pages);
    setText(pageEl, shown, false);
    wall.replaceChildren(
      ...cards.map(({ t, c }) => {
        const seat = roster?.get(c.id);
        const look = face(t, c);
        const who = [seat?.game, seat?.worldkeeper && `WorldKeeper ${seat.worldkeeper}`]
          .filter(Boolean)
          .join(" · ");
        // the table's public note, a few minutes (../notes.ts), on the game's line
        const note = publicNote(t, now);
        const verdict =
          c.lastOutcome && c.lastOutcome.success !== null && look.kind !== "outcome"
            ? c.lastOutcome
            : null;
        return h(
          "article",
          {
            class: "table-card",
            "data-table": c.id,
            "data-state": c.live.state,
            "data-uplink": snap.tables.get(c.id)?.uplink ?? "none",
            "data-kind": look.kind,
          },
          h("h2", { class: "card-name fit", title: c.id }, seat?.name ?? t.name ?? c.id),
          h(
            "p",
            {
              class: `card-figure fit kind-${look.kind}${
                look.kind === "outcome" && c.lastOutcome?.success !== null
                  ? c.lastOutcome?.success
                    ? " card-outcome success"
                    : " card-outcome failure"
                  : ""
              }`,
            },
            look.figure,
          ),
          h("p", { class: "card-performance fit" }, look.context),
          c.refusal
            ? h("p", { class: "card-refusal fit" }, `⚠ ${c.refusal}`)
            : note
              ? h("p", { class: "card-game card-note fit", "data-seq": note.seq }, note.text)
              : who
                ? h("p", { class: "card-game fit" }, who)
                : null,
          h(
            "p",
            { class: "card-line fit" },
            // the page's own link trouble is said once, in the header: a card says "offline"
            h(
              "span",
              { class: "card-status" },
              c.live.state === "live" ? "online" : online ? c.live.label : "offline",
            ),
            " · ",
            h("span", { class: "card-age" }, ageText(c.live.age)),
            c.live.gap ? h("span", { class: "card-gap" }, ` · ⚠ ${c.live.gap}`) : null,
            verdict
              ? h(
                  "span",
                  { class: `card-outcome ${verdict.success ? "success" : "failure"}` },
                  ` · ${verdict.success ? "SUCCESS" : "FAILURE"}`,
                )
              : null,
          ),
        );
      }),
    );
    byId("tables-empty").hidden = cards.length > 0;
    // featured: a long shot that came off (under LONG_SHOT %, by the odds its table published
    // before the first draw), or a death, in the last 10 minutes; the newer of the two
    const shot = featured.next(snap, now);
    const long = shot && shot.percent < LONG_SHOT ? shot : null;
    const death = fallen(snap, now);
    // the roster's name, else the one the table publishes (`…/info`), else its id
    const name = (id: string) => roster?.get(id)?.name ?? snap.tables.get(id)?.name ?? id;
    let words = "";
    let at = "";
    if (death && (!long || death.at >= long.at)) {
      words = `${name(death.table)} · ${death.name} has fallen`;
      at = death.table;
    } else if (long) {
      words = `${name(long.table)} · ${long.heroes}: SUCCESS — a ${long.text} shot`;
      at = long.table;
    }
    const star = byId("featured");
    star.hidden = words === "";
    if (star.dataset.words !== words) {
      star.dataset.words = words;
      star.dataset.table = at;
      star.style.removeProperty("font-size"); // set again to fit its new words
      star.replaceChildren(
        ...(words
          ? [h("span", { class: "featured-label" }, "★ Featured"), " ", h("span", {}, words)]
          : []),
      );
    }
    fit(document.body);
  },
});
