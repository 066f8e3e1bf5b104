/**
 * overlay.html: an OBS browser source (1920×1080, transparent). The current Performance as it
 * is drawn, the heroes' tracks, the Time Board and weather, and the combat wheel during a fight.
 * `panels=performance,heroes,time,combat` picks what shows; `layout=narrow` fits a side column.
 */

import { AlertQueue, dispatchOutcome } from "../alerts";
import { boot, renderStatus } from "../app";
import { byId, setText } from "../dom";
import * as model from "../model";
import { renderBoard, renderCombat, renderHeroes, renderPerformance, renderTime } from "../views";

const ALL = ["performance", "heroes", "time", "combat", "refusals"];
/** all a stream says of a refusal (issue 42 item 4) */
const PUBLIC_REFUSAL = "the WorldKeeper is correcting a draw";
/** every outcome on stream, in order, one at a time, each up at least 4 s (../alerts.ts) */
let table = "";
const alerts = new AlertQueue((o, waiting) => dispatchOutcome("overlay", table, o, waiting));

boot({
  name: "overlay",
  reader: "public",
  defaults: { table: "example", theme: "stream" },
  // the whole table in one message (…/state): its Performance, odds, combat and costs always
  // of one state, so a pending answer's mark replaces the previous state's figures at once
  connection: { sections: ["state", "board"] },
  render(snap, ctx, now) {
    const id = ctx.params.table;
    table = id;
    renderStatus(snap, id, now);
    const t = snap.tables.get(id);
    const shown = new Set(ctx.params.panels ?? ALL);
    const animate = ctx.motion();
    renderBoard(t ? model.board(t) : [], animate); // the board's unsync, until resolved
    const section = (name: string) => {
      const el = byId(name);
      el.classList.toggle("off", !shown.has(name));
      return el;
    };
    renderPerformance(
      section("performance"),
      t ? model.performance(t) : null,
      animate,
      null,
      (all) => alerts.next(all, now),
    );
    renderHeroes(section("heroes"), t ? model.heroes(t) : []);
    renderTime(section("time"), t ? model.time(t) : null, false);
    renderCombat(section("combat"), t ? model.combat(t) : null);
    // a refusal, briefly and in a corner: the stream sees that the table is putting a draw
    // right, never the engine's words (they name what the WorldKeeper did, issue 42 item 4;
    // the generated ACL keeps …/error off a viewer's login anyway). The reveal delay holds it
    // back like everything else, and it stays its full time
    const refusal = t
      ? model.recentRefusal(t, now - ctx.params.delay, model.ERROR_SHOWN_BRIEF_MS)
      : null;
    const toast = section("refusals");
    toast.hidden = refusal === null;
    setText(toast, refusal ? `✗ ${PUBLIC_REFUSAL}` : "", false); // a live region: on change
    toast.dataset.code = refusal?.code ?? "";
  },
});
