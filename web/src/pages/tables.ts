/**
 * tables.html: the convention wall. Every table on the broker (`rhuna/+/status` and each
 * table's retained Performance), with online/offline, its current Performance and last outcome.
 * At a venue broker (docs/convention.md) `roster=tables.json` (the file `rhuna-table venue`
 * writes, served beside the page) lists every table, heard from or not, with its name, and each
 * card shows its uplink (`rhuna/uplink/<table>`): "offline (uplink)" when its bridge is down.
 */

import { boot } from "../app";
import { byId, h, setText } from "../dom";
import { ageText, FeaturedPicker, linkLabel, UPLINK_OFFLINE, wallCard } from "../model";
import { urlParams } from "../params";
import { loadRoster } from "../roster";
import { emptyTable } from "../store";

/** The most cards one screen shows; beyond it, pages rotate (every 15 s unless `rotate=`). */
export const PER_PAGE = 60;
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

/** The venue's roster (`roster=tables.json`): every table of the venue, with its name. */
const venue = loadRoster(urlParams(location).get("roster"));

/** A grid for `n` cards on a 16:9 screen, cards about twice as wide as tall: rows (at most
 * 8) and columns. */
function grid(n: number): { cols: number; rows: number } {
  const rows = Math.max(1, Math.min(8, Math.round(Math.sqrt((n * 9 * 1.9) / 16))));
  return { rows, cols: Math.max(1, Math.ceil(n / rows)) };
}

/** A card line in pieces that each stay whole ("Performance 1", "Difficulty 5", "Aria 3"): a
 *  narrow card wraps the line between them instead of cutting it with an ellipsis. */
function pieces(text: string): (HTMLElement | string)[] {
  const out: (HTMLElement | string)[] = [];
  for (const [i, piece] of text.split(" · ").entries()) {
    if (i) out.push(" · ");
    out.push(h("span", { class: "piece" }, piece));
  }
  return out;
}

/** the featured card's pick, across renders */
const featured = new FeaturedPicker();

boot({
  name: "tables",
  reader: "public",
  defaults: { table: "+", theme: "dark" },
  connection: {
    table: "+",
    // the odds too: the featured card is the success whose published odds were lowest
    sections: ["performance", "odds", "history"],
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
    const label = online
      ? `${snap.tables.size} table${snap.tables.size === 1 ? "" : "s"}`
      : linkLabel(snap);
    setText(byId("status-label"), label, false);
    // live tables first, then the rest (offline, stale); each group in a stable order by name,
    // so a card moves only when its table changes group
    const roster = venue.tables;
    const records = [...snap.tables.values()];
    if (roster)
      for (const id of roster.keys()) if (!snap.tables.has(id)) records.push(emptyTable(id));
    const all = records
      .map((t) => wallCard(snap, t, now))
      .sort(
        (a, b) =>
          Number(b.live.state === "live") - Number(a.live.state === "live") ||
          a.id.localeCompare(b.id),
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
      ...cards.map((c) =>
        h(
          "article",
          {
            class: "table-card",
            "data-table": c.id,
            "data-state": c.live.state,
            "data-uplink": snap.tables.get(c.id)?.uplink ?? "none",
          },
          h("h2", { title: c.id }, roster?.get(c.id) ?? c.id),
          h("p", { class: "card-figure" }, ...pieces(c.figure)),
          h(
            "p",
            { class: "card-brief" },
            c.live.state === "live"
              ? "online"
              : c.live.label === UPLINK_OFFLINE
                ? UPLINK_OFFLINE
                : c.live.state,
            c.lastOutcome && c.lastOutcome.success !== null
              ? h(
                  "span",
                  { class: c.lastOutcome.success ? "success" : "failure" },
                  c.lastOutcome.success ? " · SUCCESS" : " · FAILURE",
                )
              : null,
          ),
          h("p", { class: "card-status" }, c.live.state === "live" ? "online" : c.live.label),
          h("p", { class: "card-age" }, ageText(c.live.age)),
          c.live.gap ? h("p", { class: "card-gap" }, `⚠ ${c.live.gap}`) : null,
          h("p", { class: "card-performance" }, ...pieces(c.performance ?? "No Performance open")),
          c.lastOutcome
            ? h(
                "p",
                {
                  class: `card-outcome ${c.lastOutcome.success === null ? "" : c.lastOutcome.success ? "success" : "failure"}`,
                },
                c.lastOutcome.text,
              )
            : h("p", { class: "card-outcome none" }, "No outcome yet"),
          c.refusal ? h("p", { class: "card-refusal" }, `⚠ ${c.refusal}`) : null,
        ),
      ),
    );
    byId("tables-empty").hidden = cards.length > 0;
    // the most improbable success of the last 10 minutes, by the odds its table published
    const f = featured.next(snap, now);
    const star = byId("featured");
    star.hidden = f === null;
    const words = f
      ? `${roster?.get(f.table) ?? f.table} · ${f.heroes}: SUCCESS — a ${f.percent}% shot`
      : "";
    if (star.dataset.words !== words) {
      star.dataset.words = words;
      star.dataset.table = f?.table ?? "";
      star.replaceChildren(
        ...(f
          ? [h("span", { class: "featured-label" }, "★ Featured"), " ", h("span", {}, words)]
          : []),
      );
    }
  },
});
