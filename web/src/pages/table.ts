/**
 * table.html: the second screen for a tablet or TV at the table. The same state as the overlay,
 * in type large enough to read across the table, the night's last draws and outcomes, and the
 * WorldKeeper's open prompts.
 */

import { boot, renderStatus } from "../app";
import { byId, h, keyed, setText, shown } from "../dom";
import * as model from "../model";
import { panelProblem, renderPanelHealth } from "../panelhealth";
import type { TableRecord } from "../store";
import { renderBoard, renderCombat, renderHeroes, renderPerformance, renderTime } from "../views";

/** The history's clock in the browser's own time zone: the service sends UTC (issue 32). */
const clock = new Intl.DateTimeFormat(undefined, {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

function localTime(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso.slice(11, 19) : clock.format(at);
}

/**
 * What a fight left on each hero, on the hero's card (issue 32 item 12): its injuries (C8, C9)
 * and conditions (C10) from the roster the service publishes, which the hero sheet's Wounds
 * (P15) do not count. Shown between fights too: the fight is over, the Bleeding is not.
 */
function renderInjuries(section: HTMLElement, t: TableRecord): void {
  const roster = t.sections.state?.roster ?? [];
  for (const card of Array.from(section.querySelectorAll<HTMLElement>(".hero[data-hero]"))) {
    const id = card.dataset.hero ?? "";
    const who = roster.find((c) => (c.hero ?? c.id) === id);
    if (!who || (who.injury_list.length === 0 && who.conditions.length === 0)) continue;
    // by type, its hits added up: "bleeding ×6, concussion"
    const hits = new Map<string, number>();
    for (const i of who.injury_list) hits.set(i.type, (hits.get(i.type) ?? 0) + i.hits);
    const injuries = [...hits].map(
      ([type, n]) => `${type.replace(/_/g, " ")}${n > 1 ? ` ×${n}` : ""}`,
    );
    const conditions = who.conditions.map((c) => c.name.replace(/_/g, " "));
    card.append(
      h(
        "div",
        { class: "hero-extra hero-injuries" },
        who.injuries
          ? `Injuries ${who.injuries}${injuries.length ? `: ${injuries.join(", ")}` : ""}`
          : "",
        who.injuries && conditions.length ? " · " : "",
        conditions.length ? conditions.join(", ") : "",
      ),
    );
  }
}

/** The smallest share of its designed size the page sets its type to, to fit one screen. */
const FIT_FLOOR = 0.6;

/**
 * One landscape screen, no scrolling (issue 42 item 9): the night's rows the Tonight panel has
 * no room for are left out (the newest stay), and if the table itself is still taller than the
 * screen (many heroes, a fight beside a Performance) the type is set smaller until it fits,
 * down to FIT_FLOOR. What does not fit even then (twelve heroes with every token drawn, on a
 * 4:3 tablet) is never cut off: the page gives up the one screen (`data-fit="scroll"`), each
 * panel grows to hold all it has, and the page scrolls to the last hero's odds. A portrait
 * screen keeps its one scrolling column, and so does a page whose URL asks its own type size
 * (`?scale=`): a reader who needs the type twice as big keeps it, and scrolls. Every width and
 * height is read before the next write.
 */
function fitScreen(list: HTMLElement, scaled: boolean): void {
  const root = document.documentElement;
  const rows = [...list.children] as HTMLElement[];
  for (const row of rows) row.classList.remove("cut");
  // measured on one screen again; a reader's scroll is kept through it
  const scrolled = scrollY;
  delete root.dataset.fit;
  if (innerWidth < innerHeight || scaled) {
    root.style.removeProperty("--fit");
    return;
  }
  // the screen, the grid and each panel but Tonight (which drops rows instead): the share of
  // its room the tallest of them needs
  const screen = document.scrollingElement ?? root;
  const boxes = [byId("app"), ...document.querySelectorAll<HTMLElement>("#app > .panel")].filter(
    (e) => e.id !== "history" && !e.hidden,
  );
  const room = (): number =>
    Math.min(
      innerHeight / screen.scrollHeight,
      ...boxes.map((e) => (e.clientHeight + 1) / Math.max(1, e.scrollHeight)),
    );
  let fit = 1;
  root.style.setProperty("--fit", "1");
  let r = room();
  let over = fit; // the smallest size tried that did not fit
  for (let i = 0; i < 4 && r < 1 && fit > FIT_FLOOR; i++) {
    over = fit;
    fit = Math.max(FIT_FLOOR, Math.floor(fit * r * 100) / 100);
    root.style.setProperty("--fit", String(fit));
    r = room();
  }
  // a line that wraps is no straight scale: the step down may have overshot (twelve heroes
  // went from 100 % straight to the floor with a fifth of the screen left), so take back
  // what still fits
  for (let i = 0; i < 3 && r >= 1 && over - fit > 0.02; i++) {
    const mid = Math.floor(((fit + over) / 2) * 100) / 100;
    root.style.setProperty("--fit", String(mid));
    const m = room();
    if (m >= 1) [fit, r] = [mid, m];
    else over = mid;
  }
  root.style.setProperty("--fit", String(fit));
  if (r < 1) {
    root.dataset.fit = "scroll";
    if (scrollY !== scrolled) scrollTo(scrollX, scrolled);
  }
  const bottom = list.getBoundingClientRect().bottom;
  const cut = rows.filter((row) => row.getBoundingClientRect().bottom > bottom + 0.5);
  for (const row of cut) row.classList.add("cut");
}

boot({
  name: "table",
  reader: "table",
  defaults: { table: "example", theme: "dark" },
  // the whole table in one message (…/state): its Performance, odds, combat and costs always
  // of one state, so a pending answer's mark replaces the previous state's figures at once
  connection: { sections: ["state", "history", "board", "panel"] },
  render(snap, ctx, now) {
    const id = ctx.params.table;
    renderStatus(snap, id, now);
    const t = snap.tables.get(id);
    const animate = ctx.motion();
    // the table file's name as its service publishes it (…/info), else the id
    byId("table-name").textContent = shown(t?.name ?? `Table ${id}`);
    renderBoard(t ? model.board(t) : [], animate); // the board's unsync, until resolved
    renderPanelHealth(panelProblem(t)); // the panel not responding, until it answers
    const refusal = t ? model.recentError(t, now) : null;
    const banner = byId("refusal");
    banner.hidden = refusal === null;
    setText(banner, refusal ? `⚠ ${refusal}` : "", false); // role=alert: only on change
    const perf = t ? model.performance(t, "table") : null;
    // four heroes or more: their rows in two columns, so six fit one TV screen; seven or more
    // in three, so twelve do at 1080p
    const count = perf?.contributions.length ?? 0;
    byId("performance").dataset.heroes = count >= 7 ? "more" : count >= 4 ? "many" : "few";
    renderPerformance(byId("performance"), perf, animate, "Between Performances");
    renderHeroes(byId("heroes"), t ? model.heroes(t) : []);
    if (t) renderInjuries(byId("heroes"), t);
    renderTime(byId("time"), t ? model.time(t, "table") : null, true);
    renderCombat(byId("combat"), t ? model.combat(t) : null);
    const items = t ? model.history(t, ctx.params.last, "table") : [];
    const list = byId("history-list");
    keyed(
      list,
      items,
      (i) => String(i.seq),
      (i) =>
        h(
          "li",
          {
            class: `history-item kind-${i.kind}${i.success === null ? "" : i.success ? " success" : " failure"}`,
          },
          h("time", { datetime: i.at }, localTime(i.at)),
          " ",
          i.text,
        ),
      animate,
    );
    byId("history-empty").hidden = items.length > 0;
    fitScreen(list, ctx.params.scale !== 1);
    const last = t ? model.recap(t) : null;
    const link = byId("recap");
    byId("recap-line").hidden = last === null;
    if (last) {
      link.setAttribute("href", last.href);
      link.textContent = shown(`The last session's recap (${last.session})`);
    }
  },
});
