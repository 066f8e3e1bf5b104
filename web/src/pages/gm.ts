/**
 * gm.html: the WorldKeeper's remote, for a phone held in one hand.
 *
 * Tabs for what is done every minute (the Performance, the Time Board, combat), built by hand
 * from the published state; and "All commands", a form generated from the vocabulary's JSON
 * Schema for every command, so a new command appears with no new UI code. Every command's
 * reply is shown where it was sent; nothing is shown as done before the service says so. The
 * page never decides a rule: it offers what the service published and sends the one vocabulary.
 */

import { boot, type PageContext, renderStatus } from "../app";
import { byId, h, shown as plain } from "../dom";
import * as commands from "../generated/commands";
import { renderAuditCard } from "../gm/audit";
import { renderBoardCard } from "../gm/board";
import { buildCombat } from "../gm/combat";
import { renderOnAir, wireOnAir } from "../gm/onair";
import { buildPerformance, dockKey } from "../gm/performance";
import { COMMANDS, source, useVocabulary } from "../gm/schema";
import { buildTime } from "../gm/time";
import { type Ctx, commandForm, Outlets, Panel, sender } from "../gm/ui";
import * as v from "../gm/view";
import { panelProblem, renderPanelHealth } from "../panelhealth";
import { fragmentWord, withFragmentWord } from "../params";
import type { Snapshot, TableRecord } from "../store";

const outlets = new Outlets();
const panels = {
  performance: new Panel(byId("performance-panel")),
  time: new Panel(byId("time-panel")),
  combat: new Panel(byId("combat-panel")),
};
let ctx: Ctx | null = null;

// --- tabs: one thumb's reach, at the bottom of the screen ----------------------------------
const tabs = Array.from(document.querySelectorAll<HTMLButtonElement>("nav.tabs button"));
let shown: string | null = null;
function show(tab: string): void {
  // another tab starts at its top: the last tab's scroll would open it half-way down (issue 32)
  if (shown !== null && shown !== tab) window.scrollTo(0, 0);
  shown = tab;
  for (const b of tabs) b.setAttribute("aria-current", String(b.dataset.tab === tab));
  for (const s of Array.from(document.querySelectorAll<HTMLElement>("main > section.tab"))) {
    s.hidden = s.id !== `tab-${tab}`;
  }
  // the tab is the fragment's word; its parameters (the broker) stay: docs/web.md
  history.replaceState(history.state, "", withFragmentWord(location.hash, tab));
  fitDock();
}

// --- the dock: the shown tab's frequent controls, fixed above Undo and the tabs ------------------
// (issue 41 item 15). The page keeps room under its last card for both, so nothing scrolls
// under them; a dock that grows (the physical dice opened) is measured again.
const footer = document.querySelector("footer") as HTMLElement;
const sizes = new ResizeObserver(() => fitDock());
let measured: Element | null = null;
function fitDock(): void {
  const root = document.documentElement;
  const dock = document.querySelector<HTMLElement>("main > section.tab:not([hidden]) .dock");
  if (dock !== measured) {
    if (measured) sizes.unobserve(measured);
    if (dock) sizes.observe(dock);
    measured = dock;
  }
  root.style.setProperty("--footer-h", `${footer.offsetHeight}px`);
  root.style.setProperty("--dock-h", `${dock?.offsetHeight ?? 0}px`);
}
sizes.observe(footer);
for (const b of tabs) b.addEventListener("click", () => show(b.dataset.tab ?? "performance"));
show(fragmentWord(location.hash) || "performance");

// --- every command, from the schema ----------------------------------------------------------
const picker = byId("command-pick") as HTMLSelectElement;
function fillPicker(): void {
  const chosen = picker.value;
  picker.replaceChildren(h("option", { value: "" }, "— choose a command —"));
  for (const c of [...COMMANDS].sort((a, b) => a.name.localeCompare(b.name))) {
    picker.append(h("option", { value: c.name }, c.name.replace(/_/g, " ")));
  }
  picker.value = chosen;
  picker.dataset.source = source.from;
}
fillPicker();
function showCommand(): void {
  if (!ctx) return;
  const c = COMMANDS.find((x) => x.name === picker.value);
  const box = byId("command-form");
  if (!c) {
    box.replaceChildren();
    return;
  }
  box.replaceChildren(
    h("p", { class: "hint" }, c.description),
    h("p", { class: "rules" }, c.rules.length ? `Rules: ${c.rules.join(", ")}` : ""),
    // any command of the vocabulary, the service's too (one the page was built without)
    commandForm(ctx, c.name as commands.CommandName, `all-${c.name}`),
  );
}
picker.addEventListener("change", showCommand);

// --- Undo: say what it will take back before it is pressed -------------------------------------
function renderUndo(t: TableRecord | undefined): void {
  const slot = byId("undo-slot");
  const n = t ? v.canUndo(t) : 0;
  const target = t ? v.undoTarget(t) : null;
  const loading = t !== undefined && !v.loaded(t);
  const label = loading
    ? "Undo: loading the table…"
    : n === 0
      ? "Nothing to undo"
      : target
        ? `Undo: ${target.text}`
        : "Undo the last change";
  const key = `${n}|${label}`;
  if (slot.dataset.key === key || !ctx) return;
  slot.dataset.key = key;
  const b = sender(ctx, "undo", label, () => commands.undo(), { id: "undo" });
  b.replaceChildren(h("span", { class: "said" }, label)); // two lines at most (gm.css)
  b.disabled = n === 0 || loading;
  b.title = loading
    ? "the table's state is still arriving"
    : n === 0
      ? "the service has nothing to take back"
      : target
        ? `takes back ${target.cmd}: ${target.text} (a note is not taken back by Undo)`
        : "the service did not say what it would take back: look at the history first";
  slot.replaceChildren(b, ctx.outlets.get("undo"));
}

const page = boot({
  name: "gm",
  defaults: { table: "example", theme: "dark" },
  connection: {
    sections: [
      "performance",
      "odds",
      "time",
      "combat",
      "state",
      "bags",
      "vocabulary",
      "board",
      "panel",
    ],
    replies: true,
    worldkeeper: true, // the WorldKeeper's words: …/gm_events and …/gm (the gm login's alone)
    onAir: true, // the stream overlays' switches, shown as the broker holds them (../gm/onair.ts)
  },
  render: paint,
});
wireOnAir(
  page.connection,
  () => page.store.snapshot.tables.get(page.params.table),
  () => renderOnAir(page.store.snapshot.tables.get(page.params.table), Date.now()),
);

/** Paint every part of the remote from the snapshot (boot's render; the dock's repaint too). */
function paint(snap: Snapshot, context: PageContext, now: number): void {
  const id = context.params.table;
  renderStatus(snap, id, now);
  const t = snap.tables.get(id);
  // the table file's name as its service publishes it (…/info), else the id
  byId("table-name").textContent = plain(`${t?.name ?? `Table ${id}`} · WorldKeeper`);
  const first = ctx === null;
  if (t?.sections.vocabulary && useVocabulary(t.sections.vocabulary)) {
    // the service's own list of commands: the "All" picker follows it
    fillPicker();
  }
  ctx = {
    connection: context.connection,
    outlets,
    table: id,
    choices: v.choices(t),
    // the snapshot the page would paint next second, now (the repaint keys decide what changes)
    repaint: () => paint(context.store.snapshot, context, Date.now()),
  };
  // replies that no longer belong to the published state are cleared (ui.ts, Outlets)
  outlets.observe(v.marks(t));
  if (first) showCommand();
  renderUndo(t);
  renderOnAir(t, now); // the stream overlays' switches, as the broker holds them
  renderBoardCard(t, ctx); // the board's unsync, on every tab, until resolved
  renderPanelHealth(panelProblem(t)); // the panel not responding, until it answers
  renderAuditCard(t, ctx); // the bag audit: start, end, each read, the answer
  if (!t) {
    // nothing at all from this table yet: say so, rather than an empty page
    const why =
      snap.link === "online"
        ? `Nothing from table ${id} yet: the service is not running, or this page's account may not read it (docs/web.md, Accounts).`
        : "Connecting to the broker…";
    for (const p of Object.values(panels))
      p.refresh(`none|${why}`, () => [h("p", { class: "hint empty" }, why)]);
    return;
  }
  if (!v.loaded(t)) {
    // opened late: the retained messages are still arriving (gm/view.ts, loaded)
    const why = `Loading table ${id}…`;
    for (const p of Object.values(panels))
      p.refresh(`loading|${why}`, () => [h("p", { class: "hint empty", "data-loading": "" }, why)]);
    return;
  }
  const key = (...parts: unknown[]) => JSON.stringify(parts);
  const state = t.sections.state;
  // the engine's answer to "would the table take it now?" greys the buttons (gm/view.ts)
  const legal = v.legalKey(t);
  const inBags = v.bags(t);
  panels.performance.refresh(key(t.sections.performance, inBags, t.heroes, legal, dockKey()), () =>
    buildPerformance(t, ctx as Ctx),
  );
  panels.time.refresh(key(t.sections.time, inBags, t.heroes, legal), () =>
    buildTime(t, ctx as Ctx),
  );
  const combat = t.sections.combat;
  panels.combat.refresh(key({ ...(combat ?? {}), forecast: null }, state?.roster, legal), () =>
    buildCombat(t, ctx as Ctx),
  );
  fitDock();
}
