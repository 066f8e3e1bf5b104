/**
 * The table's e-ink panel not responding (`…/panel`, issue 43 item 5): a refresh past its
 * deadline (a Waveshare BUSY that never clears: a loose ribbon) is said in the service's words,
 * "The panel is not responding: …", until the panel answers again; the table plays on meanwhile.
 *
 * It stands with the board's unsync (`…/board`, ../views.ts `renderBoard`) in one place after
 * `#status`, each its own box, the panel's first: `#standing`, made the first time, which the
 * board's box (made after `#status` by its own painter) is moved into, so on the overlay the
 * two stack in the open space under the Time Board instead of lying over each other.
 */

import { byId, h, setText } from "./dom";
import type { TableRecord } from "./store";

/** The panel's problem in words while it stands, null while it answers (or `…/panel` has not
 *  come: a service older than the topic says nothing of its panel). */
export function panelProblem(t: TableRecord | undefined): string | null {
  const p = t?.sections.panel;
  return p && !p.responding ? (p.text ?? "The panel is not responding") : null;
}

/** Paint the panel's problem (`text`, null: it answers): a box hidden while the panel answers. */
export function renderPanelHealth(text: string | null): HTMLElement {
  let standing = document.getElementById("standing");
  if (!standing) {
    standing = h("div", { id: "standing", class: "standing" });
    byId("status").after(standing);
  }
  let box = document.getElementById("panel-health");
  if (!box) {
    box = h(
      "section",
      { id: "panel-health", class: "panel-health", "aria-label": "The panel", hidden: true },
      // a live region: said once when it comes, not at every repaint (setText leaves it alone)
      h("p", { class: "panel-text", role: "alert" }),
    );
    standing.prepend(box);
  }
  const board = document.getElementById("board-sync");
  if (board && board.parentElement !== standing) standing.append(board);
  box.hidden = text === null;
  const line = box.querySelector<HTMLElement>(".panel-text");
  if (line) setText(line, text === null ? "" : `⚠ ${text}`, false);
  return box;
}
