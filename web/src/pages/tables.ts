/**
 * tables.html: the convention wall. Every table on the broker (`rhuna/+/status` and each
 * table's retained Performance), with online/offline, its current Performance and last outcome.
 */

import { boot } from "../app";
import { byId, h, setText } from "../dom";
import { ageText, wallCard } from "../model";

/** The most cards one screen shows; beyond it, pages rotate every ROTATE_MS. */
export const PER_PAGE = 60;
const ROTATE_MS = 15_000;

/** A grid for `n` cards on a 16:9 screen, cards about twice as wide as tall: rows (at most
 * 8) and columns. */
function grid(n: number): { cols: number; rows: number } {
  const rows = Math.max(1, Math.min(8, Math.round(Math.sqrt((n * 9 * 1.9) / 16))));
  return { rows, cols: Math.max(1, Math.ceil(n / rows)) };
}

boot({
  name: "tables",
  defaults: { table: "+", theme: "dark" },
  connection: {
    table: "+",
    sections: ["performance", "history"],
    heroes: true,
    events: true,
    errors: true, // each table's refusals, on its own card
  },
  render(snap, _ctx, now) {
    const link = byId("status");
    const online = snap.link === "online";
    link.dataset.state = online ? "live" : "offline";
    const label = online
      ? `${snap.tables.size} table${snap.tables.size === 1 ? "" : "s"}`
      : snap.link === "connecting"
        ? "connecting to the broker…"
        : `offline: no broker${snap.linkError ? ` (${snap.linkError})` : ""}`;
    setText(byId("status-label"), label, false);
    // live tables first, then the rest; each by name
    const all = [...snap.tables.values()]
      .map((t) => wallCard(snap, t, now))
      .sort(
        (a, b) =>
          Number(b.live.state === "live") - Number(a.live.state === "live") ||
          a.id.localeCompare(b.id),
      );
    const pages = Math.max(1, Math.ceil(all.length / PER_PAGE));
    const pageNo = Math.floor(now / ROTATE_MS) % pages;
    const cards = all.slice(pageNo * PER_PAGE, (pageNo + 1) * PER_PAGE);
    const wall = byId("tables");
    const { cols, rows } = grid(cards.length);
    wall.style.setProperty("--cols", String(cols));
    wall.style.setProperty("--rows", String(rows));
    wall.dataset.rows = String(rows);
    const pageEl = byId("wall-page");
    pageEl.hidden = pages === 1;
    pageEl.textContent = pages === 1 ? "" : `page ${pageNo + 1} of ${pages}`;
    wall.replaceChildren(
      ...cards.map((c) =>
        h(
          "article",
          { class: "table-card", "data-table": c.id, "data-state": c.live.state },
          h("h2", { title: c.id }, c.id),
          h("p", { class: "card-figure" }, c.figure),
          h(
            "p",
            { class: "card-brief" },
            c.live.state === "live" ? "online" : c.live.state,
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
          h("p", { class: "card-performance" }, c.performance ?? "No Performance open"),
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
  },
});
