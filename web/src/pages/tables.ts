/**
 * tables.html: the convention wall. Every table on the broker (`rhuna/+/status` and each
 * table's retained Performance), with online/offline, its current Performance and last outcome.
 */

import { boot } from "../app";
import { byId, h, setText } from "../dom";
import { ageText, wallCard } from "../model";

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
    const cards = [...snap.tables.values()]
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((t) => wallCard(snap, t, now));
    byId("tables").replaceChildren(
      ...cards.map((c) =>
        h(
          "article",
          { class: "table-card", "data-table": c.id, "data-state": c.live.state },
          h("h2", {}, c.id),
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
