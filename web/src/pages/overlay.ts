/**
 * overlay.html: an OBS browser source (1920×1080, transparent). One roll card in the lower
 * third (../rollcard.ts): the open Performance as it is drawn, a chance meter per hero or
 * Intersect group, the outcomes; invisible when idle. The heroes' tracks (while the card is
 * away), the Time Board and weather at the top, the combat wheel during a fight.
 * `panels=performance,heroes,time,combat` picks what shows; `layout=narrow` fits a side column;
 * The WorldKeeper's switches on gm.html (`…/overlay`, ../onair.ts) show or hide the card and
 * hold or skip the outcome that is up, within a second and without a reload (OBS never
 * reloads a source); the URL's own, when given, win for this overlay: `card=off` hides the
 * card, `alerts=skip` keeps the outcomes off it, `alerts=hold` plays each for its time.
 */

import { AlertQueue, dispatchOutcome } from "../alerts";
import { boot, renderStatus } from "../app";
import { byId, setText } from "../dom";
import * as model from "../model";
import { renderNote } from "../notes";
import { effective } from "../onair";
import { panelProblem, renderPanelHealth } from "../panelhealth";
import { urlParams } from "../params";
import { CARD_SLOTS, CARD_SLOTS_NARROW, fit, readSwitches, renderMeters } from "../rollcard";
import { renderBoard, renderCombat, renderHeroes, renderPerformance, renderTime } from "../views";

const ALL = ["performance", "heroes", "time", "combat", "refusals"];
/** all a stream says of a refusal (issue 42 item 4) */
const PUBLIC_REFUSAL = "the WorldKeeper is correcting a draw";
/** every outcome on stream, in order, one at a time, each up at least 4 s (../alerts.ts) */
let table = "";
const alerts = new AlertQueue((o, waiting) => dispatchOutcome("overlay", table, o, waiting));
/** the roll card's switches of this overlay's URL (`?card=off`, `?alerts=skip`), read once:
 *  where given they win over the WorldKeeper's (`…/overlay`) */
const fromUrl = readSwitches(urlParams(location));
/** the WorldKeeper's Skips this overlay has done (the store counts those it heard live) */
let skipped = 0;

boot({
  name: "overlay",
  reader: "public",
  defaults: { table: "example", theme: "stream" },
  // the whole table in one message (…/state): its Performance, odds, combat and costs always
  // of one state, so a pending answer's mark replaces the previous state's figures at once
  connection: { sections: ["state", "board", "panel"], onAir: true },
  render(snap, ctx, now) {
    const id = ctx.params.table;
    table = id;
    renderStatus(snap, id, now);
    const t = snap.tables.get(id);
    // the WorldKeeper's switches as they are now, not held back by `delay`: they act on what
    // the stream shows (and a payload that is not one is the defaults: ../onair.ts)
    const onAir = ctx.store.snapshot.tables.get(id)?.onAir;
    const switches = effective(fromUrl, onAir?.settings ?? null);
    const skips = onAir?.skips ?? 0;
    const shown = new Set(ctx.params.panels ?? ALL);
    const animate = ctx.motion();
    renderBoard(t ? model.board(t) : [], animate); // the board's unsync, until resolved
    renderPanelHealth(panelProblem(t)); // the panel not responding, until it answers
    const section = (name: string) => {
      const el = byId(name);
      el.classList.toggle("off", !shown.has(name));
      return el;
    };
    // the roll card: what fits of the Performance, its meters, the outcome the queue holds up
    // (the queue takes every outcome whatever the switches: none is dropped, each one's event
    // goes out); invisible when idle, and never with card=off
    const card = section("performance");
    const p = t ? model.performance(t) : null;
    const fitted = p
      ? fit(p, ctx.params.layout === "narrow" ? CARD_SLOTS_NARROW : CARD_SLOTS)
      : null;
    renderPerformance(card, fitted?.shown ?? null, animate, null, (all) => {
      // each Skip heard takes the outcome that is up down (the next goes up at once)
      for (; skipped < skips; skipped++) if (switches.skips) alerts.skip();
      const up = alerts.next(model.outcomesSeen(t), all, now, switches.hold);
      return switches.alerts === "skip" ? [] : up;
    });
    if (p && fitted) renderMeters(card, p, fitted, animate);
    if (switches.card === "off") card.hidden = true;
    card.dataset.card = switches.card;
    card.dataset.held = String(switches.hold && alerts.up !== null);
    // the heroes' tracks give the frame back while the card is up (issue 42 item 1)
    const heroes = section("heroes");
    renderHeroes(heroes, t ? model.heroes(t) : []);
    if (!card.hidden && shown.has("performance")) heroes.hidden = true;
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
    renderNote(document.body, t, now - ctx.params.delay); // the public note, 3 min (../notes.ts)
  },
});
