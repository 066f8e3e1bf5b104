/**
 * The panels the pages share (Performance, heroes, Time Board, combat), painted from `model.ts`'s
 * views into a section of the page. Elements that stay are updated in place, so only what is new
 * (a token drawn, a total changed, an outcome) animates.
 */

import { byId, h, keyed, setText, shown } from "./dom";
import type {
  CombatView,
  ContributionView,
  GroupView,
  HeroView,
  OutcomeView,
  PerformanceView,
  TimeView,
  TokenView,
  WheelSeat,
} from "./model";
import { boardText } from "./model";
import type { BoardAlert } from "./payloads";
import { tokenArt } from "./tokenart";

const present = (...els: (HTMLElement | null)[]): HTMLElement[] =>
  els.filter((e): e is HTMLElement => e !== null);

const signed = (v: number): string => (v > 0 ? `+${v}` : String(v));

function tokenEl(t: TokenView): HTMLElement {
  const el = h(
    "li",
    {
      class: `token kind-${t.kind}${t.favor ? " favor" : ""}`,
      "data-token": t.id,
      "data-shade": t.shade,
    },
    h("span", { class: "token-value" }, signed(t.value)),
    h("span", { class: "token-name" }, t.name),
  );
  el.prepend(tokenArt(t.kind, t.shade, t.name));
  return el;
}

/** How long a token a Redraw replaced stays, struck through, before it goes (ms). */
export const STRUCK_MS = 2500;
/** Each row's struck tokens: the view of the replaced token and when it goes. */
const struck = new WeakMap<HTMLElement, Map<string, { token: TokenView; until: number }>>();

function contributionEl(c: ContributionView): HTMLElement {
  return h(
    "div",
    { class: "contribution", "data-hero": c.hero },
    h(
      "div",
      { class: "who" },
      h("span", { class: "hero-name" }, c.heroName),
      " ",
      h("span", { class: "declaration" }),
    ),
    h("ol", { class: "tokens" }),
    h(
      "div",
      { class: "sum" },
      h("span", { class: "total" }),
      h("span", { class: "of" }),
      h("span", { class: "left" }),
    ),
    h("div", { class: "bar" }, h("div", { class: "fill" })),
  );
}

/** An Intersect group's one total (I-P10): "Bren + Dara together 4 / 8", each share under it. */
function groupEl(g: GroupView): HTMLElement {
  return h(
    "div",
    { class: "group-total", "data-group": g.key },
    h(
      "div",
      { class: "sum" },
      h("span", { class: "group-names" }, `${g.names} together`),
      h("span", { class: "total" }),
      h("span", { class: "of" }),
    ),
    h("ul", { class: "shares" }),
    h("div", { class: "bar" }, h("div", { class: "fill" })),
  );
}

/** The rows in order: each hero alone, and an Intersect group's heroes side by side, their
 *  one total after the last of them. */
type Row = { hero: ContributionView } | { group: GroupView };

function rowsOf(p: PerformanceView): Row[] {
  const out: Row[] = [];
  const done = new Set<string>();
  for (const c of p.contributions) {
    const g = p.groups.find((x) => x.key === c.group);
    if (!g) out.push({ hero: c });
    else if (!done.has(g.key)) {
      done.add(g.key);
      for (const m of p.contributions) if (m.group === g.key) out.push({ hero: m });
      out.push({ group: g });
    }
  }
  return out;
}

function part(root: Element, selector: string): HTMLElement {
  const el = root.querySelector(selector);
  if (!(el instanceof HTMLElement)) throw new Error(`missing ${selector}`);
  return el;
}

/** The Performance: who and what, each token as drawn, total vs Difficulty, odds, outcome. */
export function renderPerformance(
  section: HTMLElement,
  p: PerformanceView | null,
  animate: boolean,
  idle: string | null,
  outcomes: ((all: OutcomeView[]) => OutcomeView[]) | null = null,
): void {
  if (!section.firstElementChild) {
    section.append(
      // an alert queue's outcome is its own card, above the Performance: one the queue still
      // holds is never drawn under the next Performance's tokens (issue 42 item 3)
      ...(outcomes ? [h("div", { class: "outcomes alert-card" })] : []),
      h("h2", { class: "perf-title" }),
      h("div", { class: "contributions" }),
      h("div", { class: "odds" }),
      h("p", { class: "answer-note odds-note", hidden: true }),
      ...(outcomes ? [] : [h("div", { class: "outcomes" })]),
      h("ul", { class: "costs" }),
      h("p", { class: "idle" }),
    );
  }
  section.dataset.state = p ? (p.resolved ? "resolved" : "open") : "none";
  const idleEl = part(section, ".idle");
  idleEl.textContent = p ? "" : shown(idle ?? "");
  idleEl.hidden = p !== null || idle === null;
  if (!p) {
    for (const s of [".contributions", ".odds", ".costs"]) part(section, s).replaceChildren();
    part(section, ".perf-title").textContent = "";
    answerNote(part(section, ".odds-note"), null, null);
    // an outcome the alert queue still holds stays its time, though the Performance is gone
    const held = outcomes ? outcomes([]) : [];
    keyed(part(section, ".outcomes"), held, (o) => o.key, outcomeEl, animate);
    section.hidden = idle === null && held.length === 0;
    return;
  }
  section.hidden = false;
  part(section, ".perf-title").textContent =
    `Performance ${p.number} · Difficulty ${p.difficulty}` +
    (p.weight !== "off" ? ` · Weight ${p.weight}` : "");

  const rows = part(section, ".contributions");
  keyed(
    rows,
    rowsOf(p),
    (r) => ("hero" in r ? r.hero.hero : `group:${r.group.key}`),
    (r) => ("hero" in r ? contributionEl(r.hero) : groupEl(r.group)),
    animate,
  );
  for (const g of p.groups) {
    const el = part(rows, `[data-group="${CSS.escape(g.key)}"]`);
    setText(part(el, ".total"), String(g.total), animate);
    part(el, ".of").textContent = ` / ${p.difficulty}`;
    keyed(
      part(el, ".shares"),
      g.shares.map((s) => ({ ...s, text: `${s.name} ${s.total}` })),
      (s) => `${s.hero}|${s.text}`,
      (s) => h("li", { class: "share", "data-hero": s.hero }, s.text),
      false,
    );
    part(el, ".fill").style.width =
      `${Math.min(100, (100 * Math.max(0, g.total)) / Math.max(1, p.difficulty))}%`;
  }
  const now = Date.now();
  for (const c of p.contributions) {
    const row = part(rows, `.contribution[data-hero="${CSS.escape(c.hero)}"]`);
    setText(part(row, ".declaration"), c.declaration, false);
    const list = part(row, ".tokens");
    // a token that left the drawn list for the set-aside one (a Redraw): struck, then gone
    const gone = struck.get(list) ?? new Map<string, { token: TokenView; until: number }>();
    struck.set(list, gone);
    const drawn = new Set(c.tokens.map((t) => `${t.favor ? "f" : "d"}:${t.id}`));
    for (const el of Array.from(list.children)) {
      const key = (el as HTMLElement).dataset.key ?? "";
      const id = (el as HTMLElement).dataset.token ?? "";
      if (drawn.has(key) || gone.has(key) || !c.setAside.includes(id)) continue;
      const old = (el as HTMLElement).dataset.view;
      if (old) gone.set(key, { token: JSON.parse(old) as TokenView, until: now + STRUCK_MS });
    }
    for (const [k, g] of gone) if (g.until <= now || drawn.has(k)) gone.delete(k);
    const shown = [
      ...[...gone.values()].map((g) => ({ ...g.token, struck: true })),
      ...c.tokens.map((t) => ({ ...t, struck: false })),
    ];
    keyed(
      list,
      shown,
      (t) => `${t.favor ? "f" : "d"}:${t.id}`,
      (t) => {
        const el = tokenEl(t);
        el.dataset.view = JSON.stringify({ ...t, struck: undefined });
        return el;
      },
      animate,
    );
    for (const t of shown) {
      const el = list.querySelector(`[data-key="${CSS.escape(`${t.favor ? "f" : "d"}:${t.id}`)}"]`);
      if (el instanceof HTMLElement && el.classList.contains("struck") !== t.struck) {
        el.classList.toggle("struck", t.struck);
        if (t.struck) el.setAttribute("aria-label", `${t.name}, replaced by a Redraw`);
      }
    }
    // against the Difficulty: the hero's total alone; in an Intersect group, the hero's own
    // share, and the group's one total (the engine's) on the group's row after it
    const shared = c.group !== null;
    row.classList.toggle("in-group", shared);
    setText(part(row, ".total"), String(shared ? c.total : c.groupTotal), animate);
    part(row, ".of").textContent = shared ? " share" : ` / ${p.difficulty}`;
    part(row, ".left").textContent = p.resolved
      ? ""
      : c.drawsLeft === 1
        ? "1 draw left"
        : `${c.drawsLeft} draws left`;
    const fill = part(row, ".fill");
    part(row, ".bar").hidden = shared;
    fill.style.width = `${Math.min(100, (100 * Math.max(0, c.groupTotal)) / Math.max(1, p.difficulty))}%`;
  }

  // while the odds are pending (or too big to count) the note stands in for them and the
  // advice: the model gives no groups then, so none of a previous state's can stay
  const oddsEl = part(section, ".odds");
  answerNote(part(section, ".odds-note"), p.oddsNote, p.oddsStatus);
  const busy = String(p.oddsStatus === "pending");
  if (oddsEl.getAttribute("aria-busy") !== busy) oddsEl.setAttribute("aria-busy", busy);
  keyed(
    oddsEl,
    p.resolved ? [] : p.odds,
    (o) => `${o.heroes}|${o.bestPlay}|${o.asDrawn}|${o.before}|${o.advice.join("|")}`,
    (o) =>
      h(
        "div",
        { class: "odds-group" },
        p.odds.length > 1 ? h("span", { class: "odds-heroes" }, `${o.heroes}: `) : null,
        h("span", { class: "odds-best-play" }, `Best play ${o.bestPlay}%`),
        o.before !== null && o.before !== o.bestPlay
          ? h("span", { class: "odds-before" }, ` (was ${o.before}%)`)
          : null,
        o.asDrawn !== null
          ? h("span", { class: "odds-as-drawn" }, ` · as drawn ${o.asDrawn}%`)
          : null,
        ...o.advice.map((a) => h("div", { class: "advice" }, a)),
      ),
    false,
  );

  keyed(
    part(section, ".outcomes"),
    outcomes ? outcomes(p.outcomes) : p.outcomes,
    (o) => o.key,
    outcomeEl,
    animate,
  );
  keyed(
    part(section, ".costs"),
    p.costs,
    (c) => c,
    (c) => h("li", { class: "cost" }, c),
    animate,
  );
}

/** "SUCCESS — a 12% shot": the verdict, and what it beat by the service's own odds. */
export function shotText(o: OutcomeView): string {
  if (!o.shot) return "";
  const when =
    o.shot.draws === 0 ? "" : ` after ${o.shot.draws} draw${o.shot.draws === 1 ? "" : "s"}`;
  // the engine's whole percent, as the meter said it before the draws ("a 4% shot", never
  // "3.56%" under a meter that read 4%): the exact figure is on the table display's odds
  return o.success ? ` — a ${o.shot.text} shot${when}` : ` — it was ${o.shot.text}${when}`;
}

/** The outcome's card, the hero named first: "Aria — SUCCESS — a 12% shot · 6 vs 5". */
function outcomeEl(o: OutcomeView): HTMLElement {
  return h(
    "div",
    {
      class: `outcome ${o.success ? "success" : "failure"}`,
      "data-key": o.key,
      "data-performance": o.performance,
    },
    h("span", { class: "outcome-of" }, `Performance ${o.performance}`),
    h("span", { class: "outcome-hero" }, o.heroes),
    " — ",
    h("span", { class: "verdict" }, o.success ? "SUCCESS" : "FAILURE"),
    h("span", { class: "outcome-shot" }, shotText(o)),
    h("span", { class: "outcome-detail" }, ` · ${o.total} vs ${o.difficulty}`),
  );
}

/** The words standing in for an answer not published (yet): real text, `data-status` for
 * its look, hidden when there is nothing to say. */
function answerNote(el: HTMLElement, note: string | null, status: string | null): void {
  const text = shown(note ?? "");
  if (el.textContent !== text) el.textContent = text; // a change only
  el.hidden = note === null;
  el.dataset.status = note === null ? "" : (status ?? "");
}

function pips(value: number, capacity: number | null): HTMLElement {
  const el = h("span", { class: "pips" });
  const n = capacity ?? value;
  for (let i = 0; i < n; i++) el.append(h("i", { class: i < value ? "pip on" : "pip" }));
  if (capacity !== null && value > capacity) el.append(h("i", { class: "pip over" }));
  return el;
}

/** Each hero's Fatigue, Strain and Wounds tracks, Favor and Redraws. */
export function renderHeroes(section: HTMLElement, heroes: HeroView[]): void {
  section.hidden = heroes.length === 0;
  section.replaceChildren(
    ...heroes.map((hero) =>
      h(
        "div",
        { class: "hero", "data-hero": hero.id },
        h("div", { class: "hero-name" }, hero.name),
        ...hero.tracks.map((t) =>
          h(
            "div",
            { class: `track track-${t.label.toLowerCase()}` },
            h("span", { class: "track-label" }, t.label),
            pips(t.value, t.capacity),
            h(
              "span",
              { class: "track-value" },
              t.capacity === null ? String(t.value) : `${t.value}/${t.capacity}`,
            ),
          ),
        ),
        h(
          "div",
          { class: "hero-extra" },
          h("span", { class: "favor" }, `Favor ${hero.favor}`),
          " · ",
          h("span", { class: "redraws" }, `Redraws ${hero.redraws}`),
        ),
      ),
    ),
  );
}

/** The Time Board: day, band, what is due, the weather (and, on the table display, prompts). */
export function renderTime(section: HTMLElement, t: TimeView | null, withPrompts: boolean): void {
  section.hidden = t === null;
  if (!t) {
    section.replaceChildren();
    return;
  }
  section.replaceChildren(
    ...present(
      h(
        "div",
        { class: "time-line" },
        tokenArt("time", null),
        h("span", { class: "day" }, `Day ${t.day}`),
        " · ",
        h("span", { class: "band" }, t.band),
        " · ",
        h("span", { class: "due" }, `${t.due} due`),
        " · ",
        h(
          "span",
          { class: "weather" },
          t.weather ? tokenArt("weather", null, t.weather) : null,
          t.weather ? `Weather: ${t.weather}` : "No weather drawn",
        ),
      ),
      t.rest ? h("div", { class: "rest" }, t.rest) : null,
      withPrompts && t.prompts.length
        ? h(
            "div",
            { class: "prompts" },
            h("h3", {}, "WorldKeeper"),
            h("ul", {}, ...t.prompts.map((p) => h("li", { class: "prompt" }, p))),
          )
        : null,
    ),
  );
}

/** A combatant on the wheel: the dead struck through and called dead in words (C9), the
 *  living with their injuries against the limit they die above ("3/6 injuries", C8). */
function seatEl(seat: WheelSeat): HTMLElement {
  if (seat.dead) {
    return h(
      "span",
      { class: "seat dead", "data-combatant": seat.id },
      h("s", {}, seat.name),
      " ",
      h("span", { class: "seat-state" }, "dead"),
    );
  }
  return h(
    "span",
    { class: "seat", "data-combatant": seat.id },
    seat.name,
    seat.injuries
      ? h("span", { class: "seat-state" }, ` ${seat.injuries}/${seat.deathLimit} injuries`)
      : null,
  );
}

/** During a fight: the six-tick wheel (who acts on which tick) and the attack forecast. */
export function renderCombat(section: HTMLElement, c: CombatView | null): void {
  section.hidden = c === null;
  if (!c) {
    section.replaceChildren();
    return;
  }
  section.replaceChildren(
    ...present(
      h("h2", {}, `Fight ${c.fight} · Round ${c.round} · Tick ${c.tick}`),
      h(
        "ol",
        { class: "wheel" },
        ...c.wheel.map((w) =>
          h(
            "li",
            { class: w.now ? "tick now" : "tick", "data-tick": w.tick },
            h("span", { class: "tick-number" }, String(w.tick)),
            h(
              "span",
              { class: "tick-names" },
              ...w.seats.flatMap((seat, i) => [i ? ", " : null, seatEl(seat)]),
            ),
          ),
        ),
      ),
      c.acting.length ? h("p", { class: "acting" }, `Acting: ${c.acting.join(", ")}`) : null,
      c.forecast.length
        ? h("ul", { class: "forecast" }, ...c.forecast.map((f) => h("li", {}, f)))
        : null,
      c.forecastNote
        ? h(
            "p",
            { class: "answer-note forecast-note", "data-status": c.forecastStatus },
            c.forecastNote,
          )
        : null,
    ),
  );
}

/**
 * The board's unsync (`…/board`), in words, until it is resolved: a box after `#status`, made
 * the first time (no page's HTML needs to hold it), hidden while the board is in sync. Each
 * alert is one line, kept by its key; `extra` adds what a page offers beside it (gm.html: the
 * WorldKeeper's "Accept as drawn").
 */
export function renderBoard(
  alerts: readonly BoardAlert[],
  animate: boolean,
  extra: (a: BoardAlert) => (HTMLElement | null)[] = () => [],
): HTMLElement {
  let box = document.getElementById("board-sync");
  if (!box) {
    box = h(
      "section",
      { id: "board-sync", class: "board-sync", "aria-label": "The board", hidden: true },
      h("h2", { class: "board-title" }, "The board is unsync"),
      // a live region around the list, not on it: an `alert` list would not be a list
      h("div", { role: "alert" }, h("ul", { class: "board-alerts" })),
    );
    byId("status").after(box);
  }
  box.hidden = alerts.length === 0;
  const list = box.querySelector<HTMLElement>(".board-alerts");
  if (list)
    keyed(
      list,
      alerts,
      (a) => `${a.key}|${a.text}|${a.token ?? ""}`,
      (a) =>
        h(
          "li",
          { class: "board-alert", "data-board": a.key, "data-token": a.token },
          h("span", { class: "board-text" }, `⚠ ${boardText(a)}`),
          ...extra(a),
        ),
      animate,
    );
  return box;
}
