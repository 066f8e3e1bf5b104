/**
 * The Performance, two taps away: begin it with a Difficulty and the Weight; declare for a hero
 * when there is no wheel; draw by picking from the bag's current contents (a missed tag, a
 * damaged token) or let the service draw; Redraw, Call Favor, resolve, reset, cancel.
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

function begin(t: TableRecord, ctx: Ctx): HTMLElement {
  let difficulty = Number(recall("begin/difficulty") ?? 5);
  const buttons: HTMLButtonElement[] = [];
  const pick = h("div", { class: "row choice", role: "group", "aria-label": "Difficulty" });
  for (let d = 3; d <= 8; d++) {
    const b = h(
      "button",
      { type: "button", class: "btn pick", "aria-pressed": String(d === difficulty) },
      String(d),
    ) as HTMLButtonElement;
    b.dataset.difficulty = String(d);
    b.addEventListener("click", () => {
      difficulty = d;
      keep("begin/difficulty", String(d));
      for (const o of buttons) o.setAttribute("aria-pressed", String(o === b));
    });
    buttons.push(b);
    pick.append(b);
  }
  const weight = remember(
    h(
      "select",
      { name: "weight", "aria-label": "Weight" },
      h("option", { value: "off" }, "Weight off"),
      h("option", { value: "mass" }, "Weight: MASS"),
      h("option", { value: "light" }, "Weight: LIGHT"),
    ) as HTMLSelectElement,
    "begin/weight",
  );
  return card(
    "Begin a Performance",
    h("p", { class: "hint" }, "Difficulty"),
    pick,
    row(
      weight,
      gate(
        sender(ctx, "begin", "Begin", () =>
          commands.begin_performance({
            difficulty,
            weight: chosen(weight),
          }),
        ),
        v.refusal(t, "begin_performance"),
      ),
    ),
    ctx.outlets.get("begin"),
  );
}

function declare(t: TableRecord, ctx: Ctx, hero: { id: string; name: string }): HTMLElement {
  const sheet = t.heroes[hero.id];
  // every capability of the table with the hero's Training in it, Untrained ones too (the
  // engine's answer, P2, P4); from an older service, the sheet's listed Training only
  const levels: Record<string, string> = sheet?.capabilities ?? sheet?.training ?? {};
  // where the engine takes an Exert (P9)
  const exertable = new Set(sheet?.exert ?? []);
  const capability = h("select", {
    name: "capability",
    "aria-label": "Capability",
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
  const shade = h(
    "select",
    { name: "shade", "aria-label": "Shade" },
    h("option", { value: "control" }, "Control"),
    h("option", { value: "impulse" }, "Impulse"),
  ) as HTMLSelectElement;
  const action = h(
    "select",
    { name: "action", "aria-label": "Action" },
    ...["target", "defend", "gain", "spend"].map((a) => h("option", { value: a }, a)),
  ) as HTMLSelectElement;
  const exert = h("input", { type: "checkbox", name: "exert" }) as HTMLInputElement;
  const exertLabel = h("label", { class: "check" }, exert, " Exert");
  const key = `declare-${hero.id}`;
  for (const el of [capability, shade, action, exert]) remember(el, `${key}/${el.name}`);
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
  capability.addEventListener("change", sync);
  sync();
  return card(
    `${hero.name}: declare`,
    row(shade, capability, action),
    row(
      exertLabel,
      gate(
        sender(ctx, key, `Declare ${hero.name}`, () => {
          const cmd = commands.declare({
            hero: hero.id,
            shade: chosen(shade),
            capability: capability.value,
            action: chosen(action),
          });
          if (exert.checked) cmd.exert = true;
          return cmd;
        }),
        v.refusal(t, "declare", { hero: hero.id }),
      ),
    ),
    ctx.outlets.get(key),
  );
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
    { name: "replace", "aria-label": "token to redraw" },
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

export const buildPerformance: Builder = (t, ctx) => {
  const perf = v.performance(t);
  // the reply to the command that closed the last Performance stays in sight
  if (!perf) return [ctx.outlets.latest("perf", []), begin(t, ctx)];
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
    else if (!perf.resolved) out.push(declare(t, ctx, hero));
  }
  out.push(
    card(
      "This Performance",
      row(
        gate(
          sender(ctx, "perf", "Resolve", () => commands.resolve()),
          v.refusal(t, "resolve"),
        ),
        gate(
          sender(ctx, "perf", "Reset", () => commands.reset()),
          v.refusal(t, "reset"),
        ),
        gate(
          sender(ctx, "perf", "Cancel", () => commands.cancel_performance()),
          v.refusal(t, "cancel_performance"),
        ),
      ),
      ctx.outlets.get("perf"),
    ),
    h(
      "details",
      { class: "more" },
      h("summary", {}, "More: Intersect, Moment, Reserve, a token of the Favor Bag"),
      commandForm(ctx, "declare", "declare-more"),
      commandForm(ctx, "call_favor", "favor-more", {}, ["hero", "token"]),
    ),
  );
  return out;
};
