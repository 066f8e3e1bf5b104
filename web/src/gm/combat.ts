/**
 * Combat on the six-tick wheel: start a fight from the roster with initiative rolled by the
 * service or typed in from physical dice; the combatant whose turn it is acts (action, target,
 * defence, dice rolled or entered); injuries, conditions, renown; a foe improvised mid-fight
 * added and joined; the end of the fight.
 */

import { h } from "../dom";
import * as commands from "../generated/commands";
import { FormError } from "./forms";
import type { Outcome } from "./send";
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
} from "./ui";
import * as v from "./view";

/** The four rolls of an attack, in the engine's order (C6, C8). */
const ROLLS = ["attack_dice", "defense_dice", "damage_dice", "fortitude_dice"] as const;
type RollName = (typeof ROLLS)[number];

/** `3 dice`, `1 die`: a count of dice in words. */
const many = (n: number): string => `${n} ${n === 1 ? "die" : "dice"}`;

function dice(raw: string, field: string): number[] | null {
  const parts = raw.split(/[\s,]+/).filter(Boolean);
  if (!parts.length) return null;
  const values = parts.map(Number);
  if (values.some((d) => !Number.isInteger(d))) {
    throw new FormError(field, `${field}: dice are whole numbers, like 6 5 3`);
  }
  return values;
}

/** Dice typed for one roll; `scope` keeps them through repaints of that turn only, so the
 *  next turn (or the next fight) never reuses them by accident. */
function diceInput(
  name: string,
  label: string,
  scope: string | null,
  placeholder: string = label,
): HTMLInputElement {
  const el = h("input", {
    name,
    type: "text",
    inputmode: "numeric",
    placeholder,
    autocomplete: "off",
    "aria-label": label,
  }) as HTMLInputElement;
  return scope === null ? el : remember(el, `dice/${scope}/${name}`);
}

function start(t: Parameters<Builder>[0], ctx: Ctx): HTMLElement {
  const rows: { id: string; check: HTMLInputElement; init: HTMLInputElement }[] = [];
  const list = h("div", { class: "roster" });
  for (const c of v.roster(t)) {
    if (c.dead) continue;
    const check = h("input", { type: "checkbox", checked: true, value: c.id }) as HTMLInputElement;
    // the placeholder short, so a phone shows it whole beside a long name; the rest is a hint
    const init = diceInput(
      `initiative-${c.id}`,
      `${c.name}'s REFLEX dice (blank: rolled)`,
      null,
      "REFLEX dice",
    );
    rows.push({ id: c.id, check, init });
    list.append(row(h("label", { class: "check" }, check, ` ${c.name}`), init));
  }
  return card(
    "Start a fight (C2, C3)",
    ...(rows.length
      ? [list, h("p", { class: "hint" }, "REFLEX dice left blank: the table rolls them.")]
      : [
          h(
            "p",
            { class: "hint" },
            "No combatants yet: add them below, or as [[combatants]] in the table file.",
          ),
        ]),
    row(
      gate(
        sender(ctx, "start", "Start the fight", () => {
          const chosen = rows.filter((r) => r.check.checked);
          const initiative: Record<string, number[]> = {};
          let rolled = false;
          for (const r of chosen) {
            const d = dice(r.init.value, `initiative of ${r.id}`);
            if (d) initiative[r.id] = d;
            else rolled = true;
          }
          const cmd = commands.start_combat({ combatants: chosen.map((r) => r.id) });
          if (Object.keys(initiative).length) cmd.initiative = initiative;
          if (rolled) cmd.seed = seed();
          return cmd;
        }),
        v.refusal(t, "start_combat"),
      ),
    ),
    ctx.outlets.get("start"),
  );
}

function actCard(
  t: Parameters<Builder>[0],
  f: v.Fight,
  ctx: Ctx,
  who: v.FightCombatant,
): HTMLElement {
  const action = h(
    "select",
    { name: "action", "aria-label": "action" },
    ...f.actions.map((a) => h("option", { value: a.action }, a.action)),
  ) as HTMLSelectElement;
  // what each action takes is the engine's (the view's `actions`, the `act` command's own table)
  const arity = (name: string) => f.actions.find((a) => a.action === name);
  // the target: those on another side first (the likely target is the default), then the rest;
  // for an action that takes none, the picker says so instead of naming someone
  const others = f.combatants.filter((c) => c.id !== who.id && !c.dead);
  const opposed = others.filter((c) => (who.side ?? null) === null || c.side !== who.side);
  const ordered = [...opposed, ...others.filter((c) => !opposed.includes(c))];
  const target = h(
    "select",
    { name: "target", "aria-label": "target" },
    h("option", { value: "", hidden: true }, ordered.length ? "no target" : "no one to target"),
    ...ordered.map((c) => h("option", { value: c.id }, c.name)),
  ) as HTMLSelectElement;
  target.value = ordered[0]?.id ?? "";
  const defense = h(
    "select",
    // its own row: "defence: the rules' default" is never cut (issue 41 item 15); left empty,
    // the engine takes the rules' `default_defense` ("best": the target's larger pool,
    // engine/combat/pools.py best_defense)
    { name: "defense", "aria-label": "defence", class: "wide" },
    h("option", { value: "" }, "defence: the rules' default"),
    h("option", { value: "dodge" }, "DODGE"),
    h("option", { value: "parry" }, "PARRY"),
  ) as HTMLSelectElement;
  const turn = `${f.fight}/${f.round}/${f.tick}/${who.id}`;
  const inputs = {
    attack_dice: diceInput("attack_dice", "ATTACK dice", turn),
    defense_dice: diceInput("defense_dice", "DEFENSE dice", turn),
    damage_dice: diceInput("damage_dice", "DAMAGE dice", turn),
    fortitude_dice: diceInput("fortitude_dice", "FORTITUDE dice", turn),
  };
  const key = "act";
  // the likely action: an Attack when there is someone to attack, else the engine's first;
  // then the one this combatant took last (remembered below)
  if (ordered.length && f.actions.some((a) => a.action === "attack")) action.value = "attack";
  remember(action, `act-${who.id}/action`);
  remember(target, `act-${who.id}/target`);
  remember(defense, `act-${who.id}/defense`);
  // the rolls the engine asked for, after dice typed in left some blank (its refusal names the
  // roll and its count, C6/C8): kept for this turn through repaints, in the engine's words
  const askKey = `dice/${turn}/ask`;
  const ask = h("div", { class: "dice-ask", role: "status" });
  const details = h(
    "details",
    { class: "dice" },
    h("summary", {}, "Physical dice (all blank: the service rolls them)"),
  ) as HTMLDetailsElement;
  const showAsk = () => {
    const kept = recall(askKey) ?? "";
    const [field = "", ...lines] = kept ? kept.split("\n") : [];
    ask.replaceChildren(
      ...(lines.length
        ? [
            h("strong", {}, "Roll now:"),
            h("ul", {}, ...lines.map((l) => h("li", {}, l))),
            h(
              "p",
              { class: "hint" },
              "Type them in and press Act again, or let the table roll them.",
            ),
          ]
        : []),
    );
    ask.hidden = lines.length === 0;
    for (const name of ROLLS) {
      const asked = lines.length > 0 && ROLLS.indexOf(name) >= ROLLS.indexOf(field as RollName);
      inputs[name].classList.toggle("asked", asked && !inputs[name].value.trim());
    }
    if (lines.length) details.open = true;
  };
  const forget = () => {
    keep(askKey, "");
    showAsk();
  };
  const heard = (o: Outcome) => {
    const err = o.state === "refused" ? o.reply.error : null;
    const field = err?.field as RollName | undefined;
    if (!err || !field || !ROLLS.includes(field)) {
      forget();
      return;
    }
    // the engine's ask (its count: the DAMAGE pool is the weapon's dice plus the attack's
    // successes, known only once the attack is rolled); FORTITUDE's count is the view's
    const lines = [err.message];
    const foe = f.combatants.find((c) => c.id === target.value);
    if (field === "damage_dice" && foe && !inputs.fortitude_dice.value.trim())
      lines.push(`the FORTITUDE roll (${foe.name}): roll ${many(foe.fortitude_dice)}`);
    keep(askKey, [field, ...lines].join("\n"));
    showAsk();
    if (inputs[field].isConnected) inputs[field].focus();
  };
  const valid = (id: string | undefined): id is string =>
    id !== undefined && ordered.some((c) => c.id === id);
  const command = (rollRest: boolean) => () => {
    const a = action.value;
    const cmd = commands.act({ combatant: who.id, action: chosen(action) });
    if (arity(a)?.target) cmd.target = target.value;
    if (arity(a)?.rolls) {
      if (defense.value) cmd.defense = chosen(defense);
      let typed = false;
      for (const name of ROLLS) {
        const d = dice(inputs[name].value, name);
        if (d) {
          cmd[name] = d;
          typed = true;
        }
      }
      // never a silent roll: with dice typed in, the service rolls none of the rest unless
      // asked to in words ("Let the table roll the rest"); the engine asks for what is missing
      if (!typed || rollRest) cmd.seed = seed();
    }
    return cmd;
  };
  const rest = sender(ctx, key, "Let the table roll the rest", command(true), {}, heard);
  const targeted = () => {
    const takes = arity(action.value)?.target ?? false;
    target.disabled = !takes || ordered.length === 0;
    const rolls = arity(action.value)?.rolls ?? false;
    defense.disabled = !rolls;
    for (const input of Object.values(inputs)) input.disabled = !rolls; // an attack's dice only
    rest.disabled = !rolls;
    if (target.disabled) {
      target.value = "";
    } else if (!valid(target.value)) {
      const kept = recall(`act-${who.id}/target`);
      target.value = valid(kept) ? kept : (ordered[0]?.id ?? "");
    }
  };
  action.addEventListener("change", targeted);
  targeted();
  // another action, target or defence: the rolls asked for were another attack's
  for (const el of [action, target, defense]) el.addEventListener("change", forget);
  details.append(
    ...Object.values(inputs),
    row(gate(rest, v.refusal(t, "act", { combatant: who.id }))),
    h(
      "p",
      { class: "hint" },
      "Dice typed in: the service rolls nothing else; it asks for each roll left blank, " +
        "with its count. “Let the table roll the rest” has the service roll them.",
    ),
  );
  showAsk();
  // the dock (issue 41 item 15): fixed above Undo and the tabs, the Act button lowest; its
  // reply is shown above it (buildCombat)
  const el = card(
    `${who.name} acts (round ${f.round}, tick ${f.tick})`,
    details,
    ask,
    row(action, target),
    row(defense),
    row(
      gate(
        sender(ctx, key, `Act: ${who.name}`, command(false), {}, heard),
        v.refusal(t, "act", { combatant: who.id }),
      ),
    ),
  );
  el.dataset.acting = who.id;
  el.classList.add("dock");
  el.setAttribute("role", "region");
  el.setAttribute("aria-label", `${who.name} acts`);
  return el;
}

function tools(ctx: Ctx): HTMLElement {
  const box = h("details", { class: "more" }, h("summary", {}, "Injuries, conditions, renown"));
  for (const name of [
    "injure",
    "heal_injuries",
    "add_combat_condition",
    "remove_combat_condition",
    "adjust_renown",
    "target_leaves_sight",
  ] as const) {
    box.append(h("h4", {}, name.replace(/_/g, " ")), commandForm(ctx, name, `tool-${name}`));
  }
  return box;
}

export const buildCombat: Builder = (t, ctx) => {
  const f = v.fight(t);
  const out: (HTMLElement | null)[] = [];
  if (!f) {
    out.push(ctx.outlets.latest("end", []), start(t, ctx));
  } else {
    out.push(
      h(
        "p",
        { class: "summary" },
        `Fight ${f.fight} · round ${f.round} · tick ${f.tick} · acting: ${
          f.acting.map((id) => f.combatants.find((c) => c.id === id)?.name ?? id).join(", ") ||
          "nobody can act"
        }`,
      ),
    );
    out.push(ctx.outlets.get("start"), ctx.outlets.get("act"));
    const who = f.combatants.find((c) => c.id === f.acting[0]);
    if (who) out.push(actCard(t, f, ctx, who));
    const waiting = v.roster(t).filter((c) => !c.in_fight && !c.dead);
    const list = h(
      "ul",
      { class: "fighters" },
      ...f.combatants.map((c) =>
        h(
          "li",
          { class: c.dead ? "dead" : "" },
          `${c.name} · tick ${c.tick} · ${c.injuries} injuries` +
            (c.conditions.length ? ` · ${c.conditions.map((k) => k.name).join(", ")}` : "") +
            (c.dead ? " · dead" : ""),
        ),
      ),
    );
    out.push(card("On the wheel", list));
    if (waiting.length) {
      out.push(
        card(
          "Join the fight (I-C3b)",
          ...waiting.map((c) =>
            row(
              h("span", { class: "who" }, c.name),
              gate(
                sender(ctx, "join", `${c.name} joins`, () =>
                  commands.join_combat({
                    combatant: c.id,
                    seed: seed(),
                  }),
                ),
                v.refusal(t, "join_combat", { combatant: c.id }),
              ),
            ),
          ),
          ctx.outlets.get("join"),
        ),
      );
    }
    out.push(
      tools(ctx),
      card(
        "End",
        row(
          gate(
            sender(ctx, "end", "End the fight", () => commands.end_combat()),
            v.refusal(t, "end_combat"),
          ),
        ),
        ctx.outlets.get("end"),
      ),
    );
  }
  out.push(
    h(
      "details",
      { class: "more", "data-add": "combatant", open: v.roster(t).length === 0 },
      h("summary", {}, "Add a combatant (a foe you improvise)"),
      commandForm(ctx, "add_combatant", "add", f ? { join: true, seed: seed() } : {}, null, "Add"),
    ),
  );
  return out;
};
