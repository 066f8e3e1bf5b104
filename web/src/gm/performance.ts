/**
 * The Performance, two taps away: begin it with a Difficulty and the Weight; declare for a hero
 * when there is no wheel; draw by picking from the bag's current contents (a missed tag, a
 * damaged token) or let the service draw; Redraw, Call Favor, resolve, reset, cancel.
 *
 * For a thumb (issue 41 item 15): what is pressed in every Performance (the Difficulty, Begin,
 * Declare, Redraw, Resolve) sits in the dock, fixed at the bottom above Undo and the tabs; the
 * cards above it show the draws and the rarer commands. The Difficulty and each hero's last
 * declare are remembered (this phone's storage, by table), so a Performance like the last one
 * is a tap per hero.
 */

import { h, shown } from "../dom";
import * as commands from "../generated/commands";
import type { Contribution } from "../payloads";
import type { TableRecord } from "../store";
import {
  type Builder,
  type Ctx,
  card,
  chosen,
  commandForm,
  gate,
  keep,
  recall,
  remember,
  row,
  seed,
  sender,
  tokenPicks,
} from "./ui";
import * as v from "./view";

/** "Aria's skill Ember (control)" on Aria's own card: "skill Ember (control)". */
function short(name: string, owner: string): string {
  return name.startsWith(`${owner}'s `) ? name.slice(owner.length + 3) : name;
}

/** What this phone remembers across reloads, by table: the Difficulty, each hero's last
 *  declare. Never a rule, only a default; a storage the browser refuses is no memory. */
function lasting(ctx: Ctx, key: string, value?: string): string | undefined {
  const name = `rhuna.gm.${ctx.table}.${key}`;
  try {
    if (value !== undefined) localStorage.setItem(name, value);
    return localStorage.getItem(name) ?? undefined;
  } catch {
    return undefined;
  }
}

/** A choice kept for this page (ui.ts memory) and this phone (`lasting`). */
function choice(ctx: Ctx, key: string, fallback: string): string {
  return recall(key) ?? lasting(ctx, key) ?? fallback;
}

function choose(ctx: Ctx, key: string, value: string): void {
  keep(key, value);
  lasting(ctx, key, value);
}

/** A row of one-tap choices (aria-pressed), each `attr`=value; `pick` on a tap. */
function segmented(
  label: string,
  options: readonly (readonly [string, string])[],
  current: string,
  attr: string,
  pick: (value: string) => void,
): HTMLElement {
  const buttons: HTMLButtonElement[] = [];
  const group = h("div", { class: "row choice", role: "group", "aria-label": label });
  for (const [value, text] of options) {
    const b = h(
      "button",
      { type: "button", class: "btn pick", "aria-pressed": String(value === current) },
      text,
    ) as HTMLButtonElement;
    b.setAttribute(attr, value);
    b.addEventListener("click", () => {
      pick(value);
      for (const o of buttons) o.setAttribute("aria-pressed", String(o === b));
    });
    buttons.push(b);
    group.append(b);
  }
  return group;
}

/** The dock with no Performance open: the Difficulty (one tap), the Weight, Begin. */
function beginDock(t: TableRecord, ctx: Ctx): HTMLElement {
  let difficulty = Number(choice(ctx, "begin/difficulty", "5"));
  if (!(difficulty >= 3 && difficulty <= 8)) difficulty = 5;
  const begin = sender(ctx, "begin", `Begin · Difficulty ${difficulty}`, () =>
    commands.begin_performance({ difficulty, weight: chosen(weight) }),
  );
  const pick = segmented(
    "Difficulty",
    [3, 4, 5, 6, 7, 8].map((d) => [String(d), String(d)] as const),
    String(difficulty),
    "data-difficulty",
    (d) => {
      difficulty = Number(d);
      choose(ctx, "begin/difficulty", d);
      begin.firstChild?.replaceWith(`Begin · Difficulty ${d}`);
    },
  );
  const weight = h(
    "select",
    { name: "weight", "aria-label": "Weight" },
    h("option", { value: "off" }, "Weight off"),
    h("option", { value: "mass" }, "Weight: MASS"),
    h("option", { value: "light" }, "Weight: LIGHT"),
  ) as HTMLSelectElement;
  weight.value = choice(ctx, "begin/weight", "off");
  weight.addEventListener("change", () => choose(ctx, "begin/weight", weight.value));
  return h(
    "div",
    { class: "dock", "data-dock": "begin", role: "region", "aria-label": "Begin a Performance" },
    h("p", { class: "dock-title" }, "Begin a Performance · Difficulty"),
    pick,
    row(weight, gate(begin, v.refusal(t, "begin_performance"))),
  );
}

type Declare = Parameters<typeof commands.declare>[0];

/** The Training levels, lowest first (P4): the best is the likely capability. */
const RANKS = ["untrained", "trained", "adept", "master", "exemplar"];

/** The hero the WorldKeeper picked in the dock; null: the first hero not declared yet. */
let picked: string | null = null;

/** What the Performance panel's repaint key needs of the dock (its picked hero). */
export function dockKey(): string {
  return picked ?? "";
}

/** The hero the dock is for: the one picked, else the first not declared, else the first. */
function dockHero(t: TableRecord): { id: string; name: string } | null {
  const all = v.heroes(t);
  return (
    all.find((x) => x.id === picked) ?? all.find((x) => !v.contribution(t, x.id)) ?? all[0] ?? null
  );
}

/** Declare for `hero` from the dock: Shade and Action one tap each, the Capability picked
 *  from every capability with its level, Exert where the engine takes it (P9); each hero's
 *  last declare is the default. */
function declarePane(
  t: TableRecord,
  ctx: Ctx,
  hero: { id: string; name: string },
): { fields: HTMLElement[]; button: HTMLButtonElement } {
  const sheet = t.heroes[hero.id];
  // every capability of the table with the hero's Training in it, Untrained ones too (the
  // engine's answer, P2, P4); from an older service, the sheet's listed Training only
  const levels: Record<string, string> = sheet?.capabilities ?? sheet?.training ?? {};
  // where the engine takes an Exert (P9)
  const exertable = new Set(sheet?.exert ?? []);
  const key = `declare-${hero.id}`;
  const capability = h("select", {
    name: "capability",
    "aria-label": `${hero.name}'s capability`,
    class: "wide",
  }) as HTMLSelectElement;
  // the hero's trained capabilities first (the likely choice), then the Untrained, each in
  // the table's order
  const entries = Object.entries(levels);
  for (const [cap, level] of [
    ...entries.filter(([, l]) => l !== "untrained"),
    ...entries.filter(([, l]) => l === "untrained"),
  ]) {
    capability.append(h("option", { value: cap }, `${cap} (${level})`));
  }
  // the default: the hero's last declare, else their best Training (the likely choice)
  const rank = (l: string) => RANKS.indexOf(l);
  const best = entries.reduce<[string, string] | null>(
    (a, e) => (a === null || rank(e[1]) > rank(a[1]) ? e : a),
    null,
  );
  const lastCap = choice(ctx, `${key}/capability`, best?.[0] ?? "");
  if (lastCap in levels) capability.value = lastCap;
  let shade = choice(ctx, `${key}/shade`, "control");
  let action = choice(ctx, `${key}/action`, "target");
  const exert = h("input", { type: "checkbox", name: "exert" }) as HTMLInputElement;
  const exertLabel = h("label", { class: "check" }, exert, " Exert");
  remember(exert, `${key}/exert`);
  // Exert only where the engine says it would take it: an Untrained capability (P9)
  const sync = () => {
    const cap = capability.value;
    const allowed = exertable.has(cap);
    exert.disabled = !allowed;
    if (!allowed) exert.checked = false;
    exertLabel.title = allowed
      ? "Exert: draw 3 in all, then Fatigue (P9)"
      : shown(`[P9] only Untrained heroes Exert: ${hero.name} is ${levels[cap] ?? "?"} in ${cap}`);
  };
  capability.addEventListener("change", () => {
    choose(ctx, `${key}/capability`, capability.value);
    sync();
  });
  sync();
  const button = gate(
    sender(
      ctx,
      key,
      `Declare ${hero.name}`,
      () => {
        const cmd = commands.declare({
          hero: hero.id,
          shade: shade as Declare["shade"],
          capability: capability.value,
          action: action as Declare["action"],
        });
        if (exert.checked) cmd.exert = true;
        return cmd;
      },
      { "data-declare": hero.id },
      (o) => {
        if (o.state !== "ok") return;
        // this declare is the hero's default next time; the dock moves to the next hero
        choose(ctx, `${key}/capability`, capability.value);
        if (picked === hero.id) picked = null;
      },
    ),
    v.refusal(t, "declare", { hero: hero.id }),
  );
  const shadeRow = segmented(
    "Shade",
    [
      ["control", "Control"],
      ["impulse", "Impulse"],
    ],
    shade,
    "data-shade",
    (x) => {
      shade = x;
      choose(ctx, `${key}/shade`, x);
    },
  );
  shadeRow.append(exertLabel);
  const actionRow = segmented(
    "Action",
    ["target", "defend", "gain", "spend"].map((x) => [x, x] as const),
    action,
    "data-action",
    (x) => {
      action = x;
      choose(ctx, `${key}/action`, x);
    },
  );
  return { fields: [row(capability), shadeRow, actionRow], button };
}

function contributionCard(t: TableRecord, ctx: Ctx, c: Contribution): HTMLElement {
  const key = `draw-${c.hero}`;
  const bag = v.heroBag(t, c.hero);
  const drawn = h(
    "ul",
    { class: "drawn" },
    ...c.drawn.map((d) => h("li", {}, `${d.name} ${v.signed(d.value)}`)),
    // the Favor Bag's tokens are named "Favor: The Judge (control)" by the engine: no second prefix
    ...c.favor.map((d) =>
      h(
        "li",
        { class: "favor" },
        `${/^favor\b/i.test(d.name) ? "" : "Favor: "}${d.name} ${v.signed(d.value)}`,
      ),
    ),
  );
  const who = { hero: c.hero };
  const drawRefused = v.refusal(t, "draw", who);
  const favorRefused = v.refusal(t, "call_favor", who);
  const redrawRefused = v.refusal(t, "redraw", who);
  const picks = tokenPicks(
    ctx,
    key,
    bag?.tokens ?? [],
    (id) => commands.draw({ hero: c.hero, token: id }),
    (name) => short(name, c.name),
    "data-token",
    drawRefused,
  );
  const replace = h(
    "select",
    // its own row: a token's whole name (issue 41 item 15)
    { name: "replace", "aria-label": "token to redraw", class: "wide" },
    ...c.drawn.map((d) => h("option", { value: d.id }, d.name)),
  ) as HTMLSelectElement;
  // in an Intersect group the hero's own total is a share: the group's one total is above
  const shared = v.group(t, c.hero) !== null;
  return card(
    `${c.name}: ${shared ? `share ${c.total}` : `${c.total} / ${t.sections.performance?.difficulty ?? "?"}`}` +
      ` · ${c.draws_left} draw${c.draws_left === 1 ? "" : "s"} left`,
    h("p", { class: "hint" }, `${c.shade} · ${c.capability} · ${c.action} · ${c.training}`),
    ctx.outlets.get(`declare-${c.hero}`),
    drawn,
    row(
      gate(
        sender(ctx, key, "Draw at random", () => commands.draw({ hero: c.hero, seed: seed() })),
        drawRefused,
      ),
      gate(
        sender(ctx, key, "Call Favor", () => commands.call_favor({ hero: c.hero, seed: seed() })),
        favorRefused,
      ),
    ),
    c.drawn.length
      ? row(
          replace,
          gate(
            sender(ctx, key, "Redraw", () =>
              commands.redraw({
                hero: c.hero,
                replace: replace.value,
                seed: seed(),
              }),
            ),
            redrawRefused,
          ),
        )
      : null,
    c.drawn.length
      ? h(
          "details",
          { class: "more" },
          h("summary", {}, "Or pick the replacement drawn (P11)"),
          tokenPicks(
            ctx,
            key,
            bag?.tokens ?? [],
            (id) => commands.redraw({ hero: c.hero, replace: replace.value, token: id }),
            (name) => short(name, c.name),
            "data-replacement",
            redrawRefused,
          ),
        )
      : null,
    ctx.outlets.get(key),
    h(
      "p",
      { class: "hint" },
      `Or pick the token drawn from ${bag?.name ?? "the bag"} (${bag?.count ?? "?"} in it):`,
    ),
    picks,
    h(
      "details",
      { class: "more" },
      h("summary", {}, "Or pick the Favor token drawn (a missed tag)"),
      tokenPicks(
        ctx,
        key,
        v.bag(t, "favor")?.tokens ?? [],
        (id) => commands.call_favor({ hero: c.hero, token: id }),
        (name) => name,
        "data-favor",
        favorRefused,
      ),
    ),
  );
}

/** Redraw from the dock: one button per token the hero drew, each naming it (P11). */
function redrawPane(t: TableRecord, ctx: Ctx, c: Contribution): HTMLElement[] {
  const refused = v.refusal(t, "redraw", { hero: c.hero });
  if (!c.drawn.length)
    return [h("p", { class: "hint" }, `${c.name}: lay the tokens drawn on the Draw Board`)];
  return [
    h(
      "div",
      { class: "row picks", role: "group", "aria-label": `${c.name}'s redraw` },
      ...c.drawn.map((d) =>
        gate(
          sender(
            ctx,
            `draw-${c.hero}`,
            `Redraw ${short(d.name, c.name)}`,
            () => commands.redraw({ hero: c.hero, replace: d.id, seed: seed() }),
            { class: "btn token", "data-redraw": d.id },
          ),
          refused,
        ),
      ),
    ),
  ];
}

/** The dock of an open Performance: the hero picked (one tap), their declare or their Redraw,
 *  and Resolve; once resolved, Reset. */
function performanceDock(t: TableRecord, ctx: Ctx, resolved: boolean): HTMLElement {
  const hero = dockHero(t);
  const c = hero ? v.contribution(t, hero.id) : null;
  const heroes = h("div", { class: "row choice", role: "group", "aria-label": "Hero" });
  for (const x of v.heroes(t)) {
    const b = h(
      "button",
      {
        type: "button",
        class: "btn pick",
        "aria-pressed": String(x.id === hero?.id),
        "data-hero-pick": x.id,
      },
      x.name,
    ) as HTMLButtonElement;
    b.addEventListener("click", () => {
      picked = x.id;
      ctx.repaint?.();
    });
    heroes.append(b);
  }
  const resolve = gate(
    sender(ctx, "perf", "Resolve", () => commands.resolve()),
    v.refusal(t, "resolve"),
  );
  let body: HTMLElement[] = [];
  let last: (HTMLElement | null)[] = [resolve];
  if (resolved) {
    last = [
      resolve,
      gate(
        sender(ctx, "perf", "Reset", () => commands.reset()),
        v.refusal(t, "reset"),
      ),
    ];
  } else if (hero && c) {
    body = redrawPane(t, ctx, c);
  } else if (hero) {
    const pane = declarePane(t, ctx, hero);
    body = pane.fields;
    last = [pane.button, resolve];
  }
  const dock = h(
    "div",
    { class: "dock", "data-dock": "performance", role: "region", "aria-label": "This Performance" },
    resolved ? null : heroes,
    ...body,
    row(...last),
  );
  if (hero) dock.dataset.hero = hero.id;
  return dock;
}

export const buildPerformance: Builder = (t, ctx) => {
  const perf = v.performance(t);
  // the reply to the command that closed the last Performance stays in sight
  if (!perf) {
    picked = null;
    return [ctx.outlets.latest("perf", []), ctx.outlets.get("begin"), beginDock(t, ctx)];
  }
  const out: (HTMLElement | null)[] = [
    h(
      "p",
      { class: "summary" },
      `Performance ${perf.number} · Difficulty ${perf.difficulty} · Weight ${perf.weight}` +
        (perf.resolved ? " · resolved" : ""),
    ),
    ctx.outlets.get("begin"),
  ];
  for (const r of perf.results) {
    out.push(
      h(
        "p",
        { class: `outcome ${r.success ? "success" : "failure"}` },
        `${r.heroes.map((id) => t.heroes[id]?.name ?? id).join(" + ")} · ` +
          `${r.success ? "SUCCESS" : "FAILURE"} · ${r.total} / ${r.difficulty}`,
      ),
    );
  }
  const shown = new Set<string>();
  const waiting: string[] = [];
  for (const hero of v.heroes(t)) {
    const c = v.contribution(t, hero.id);
    const members = c ? v.group(t, c.hero) : null;
    const first = members?.[0];
    if (members && first && !shown.has(first.hero)) {
      // the group's one total against the Difficulty, once, named as the group's (I-P10)
      shown.add(first.hero);
      out.push(
        h(
          "div",
          { class: "group-total", "data-group": members.map((m) => m.hero).join("+") },
          h(
            "p",
            { class: "summary" },
            `${members.map((m) => m.name).join(" + ")} together ${first.group_total} / ${perf.difficulty}`,
          ),
          h(
            "ul",
            { class: "shares" },
            ...members.map((m) => h("li", { "data-hero": m.hero }, `${m.name} ${m.total}`)),
          ),
        ),
      );
    }
    if (c) out.push(contributionCard(t, ctx, c));
    else if (!perf.resolved) waiting.push(hero.name);
  }
  if (waiting.length)
    out.push(h("p", { class: "hint" }, `Not declared: ${waiting.join(", ")} (declare below)`));
  const docked = perf.resolved ? null : dockHero(t);
  out.push(
    // the dock's replies, just above it
    docked && !v.contribution(t, docked.id) ? ctx.outlets.get(`declare-${docked.id}`) : null,
    ctx.outlets.get("perf"),
    card(
      "This Performance",
      row(
        perf.resolved
          ? null
          : gate(
              sender(ctx, "perf", "Reset", () => commands.reset()),
              v.refusal(t, "reset"),
            ),
        gate(
          sender(ctx, "perf", "Cancel", () => commands.cancel_performance()),
          v.refusal(t, "cancel_performance"),
        ),
      ),
    ),
    h(
      "details",
      { class: "more" },
      h("summary", {}, "More: Intersect, Moment, Reserve, a token of the Favor Bag"),
      commandForm(ctx, "declare", "declare-more"),
      commandForm(ctx, "call_favor", "favor-more", {}, ["hero", "token"]),
    ),
    performanceDock(t, ctx, perf.resolved),
  );
  return out;
};
