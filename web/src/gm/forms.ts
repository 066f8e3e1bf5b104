/**
 * A form for any command of the vocabulary, generated from its schema entry (schema.ts).
 *
 * Each field type has one control: an enum is a row of buttons-like options (a <select>), an
 * integer a numeric keypad, a boolean a yes/no/unset choice, an array of dice "6 5 3", an
 * array of ids a checklist. Fields named like the table's things (hero, combatant, target,
 * token …) offer the names the service published, so nothing needs typing on a phone; an
 * object field alone falls back to JSON text, and every command with one also has a way
 * without it. The form never decides what the rules allow: the service answers.
 */

import { h } from "../dom";
import type { CommandSpec, FieldSpec } from "./schema";
import type { FormCommand } from "./send";

/** Names a field can offer, by field name: (value, label) pairs from the published state. */
export type Choices = Record<string, readonly (readonly [string, string])[]>;

export class FormError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

function label(f: FieldSpec): HTMLElement {
  return h(
    "span",
    { class: "field-label" },
    f.name.replace(/_/g, " "),
    f.required ? h("span", { class: "required", title: "required" }, " *") : null,
  );
}

let lists = 0;

/**
 * Offered, not imposed: a field named like the table's things may also name a new one
 * (add_combatant's id), so the names come as suggestions the phone's keyboard shows.
 */
function suggest(
  f: FieldSpec,
  input: HTMLElement,
  known: readonly (readonly [string, string])[],
): HTMLElement {
  const id = `choices-${f.name}-${++lists}`;
  input.setAttribute("list", id);
  return h(
    "span",
    { class: "suggest" },
    input,
    h("datalist", { id }, ...known.map(([value, text]) => h("option", { value }, text))),
  );
}

function select(f: FieldSpec, options: readonly (readonly [string, string])[]): HTMLElement {
  const el = h("select", { name: f.name, "data-type": f.type }) as HTMLSelectElement;
  el.append(h("option", { value: "" }, f.required ? "— choose —" : "—"));
  for (const [value, text] of options) el.append(h("option", { value }, text));
  return el;
}

function control(f: FieldSpec, choices: Choices): HTMLElement {
  const known = choices[f.name];
  if (f.type === "string") {
    if (f.enum)
      return select(
        f,
        f.enum.map((v) => [v, v] as const),
      );
    const input = h("input", {
      name: f.name,
      type: "text",
      autocomplete: "off",
      "data-type": "string",
    });
    return known?.length ? suggest(f, input, known) : input;
  }
  if (f.type === "integer") {
    const input = h("input", {
      name: f.name,
      type: "number",
      inputmode: "numeric",
      step: 1,
      min: f.minimum ?? undefined,
      max: f.maximum ?? undefined,
      "data-type": "integer",
    });
    return known?.length ? suggest(f, input, known) : input;
  }
  if (f.type === "boolean") {
    return select(f, [
      ["true", "yes"],
      ["false", "no"],
    ]);
  }
  if (f.type === "array" && f.items === "string" && known?.length) {
    const box = h("fieldset", { class: "checklist", "data-name": f.name, "data-type": "ids" });
    for (const [value, text] of known) {
      box.append(
        h("label", {}, h("input", { type: "checkbox", value, "data-of": f.name }), ` ${text}`),
      );
    }
    return box;
  }
  if (f.type === "array" && f.items === "integer") {
    return h("input", {
      name: f.name,
      type: "text",
      inputmode: "numeric",
      placeholder: "dice: 6 5 3",
      autocomplete: "off",
      "data-type": "dice",
    });
  }
  if (f.type === "array") {
    return h("input", {
      name: f.name,
      type: "text",
      placeholder: "a, b, c",
      autocomplete: "off",
      "data-type": "list",
    });
  }
  return h("textarea", {
    name: f.name,
    rows: 2,
    placeholder: "JSON object (optional)",
    "data-type": "object",
  });
}

/** The form's fields for `spec`; `hidden` presets are sent as they are and not shown. */
export function fieldsFor(
  spec: CommandSpec,
  choices: Choices,
  hidden: Record<string, unknown> = {},
  shown: readonly string[] | null = null,
): HTMLElement {
  const box = h("div", { class: "fields", "data-cmd": spec.name });
  box.dataset.hidden = JSON.stringify(hidden);
  for (const f of spec.fields) {
    if (f.name in hidden) continue;
    if (shown && !shown.includes(f.name)) continue;
    box.append(
      h(
        "label",
        { class: `field field-${f.type}`, "data-field": f.name },
        label(f),
        control(f, choices),
        f.description ? h("small", {}, f.description) : null,
      ),
    );
  }
  return box;
}

function named(box: HTMLElement, name: string): HTMLInputElement | null {
  return box.querySelector(`[name="${name}"]`);
}

/** The command the form says, or a FormError naming the field (nothing is sent then). */
export function readFields(spec: CommandSpec, box: HTMLElement): FormCommand {
  const out: Record<string, unknown> = {
    cmd: spec.name,
    ...JSON.parse(box.dataset.hidden ?? "{}"),
  };
  for (const f of spec.fields) {
    if (f.name in out) continue;
    const checklist = box.querySelector<HTMLElement>(`fieldset[data-name="${f.name}"]`);
    if (checklist) {
      const ids = Array.from(
        checklist.querySelectorAll<HTMLInputElement>("input[type=checkbox]:checked"),
      ).map((i) => i.value);
      if (ids.length) out[f.name] = ids;
      else if (f.required) throw new FormError(f.name, `${f.name}: choose at least one`);
      continue;
    }
    const el = named(box, f.name);
    if (!el) continue;
    const raw = el.value.trim();
    if (raw === "") {
      if (f.required) throw new FormError(f.name, `${f.name} is needed`);
      continue;
    }
    out[f.name] = parse(f, raw, el.dataset.type ?? f.type);
  }
  return out as FormCommand;
}

function parse(f: FieldSpec, raw: string, kind: string): unknown {
  switch (kind) {
    case "integer": {
      const n = Number(raw);
      if (!Number.isInteger(n)) throw new FormError(f.name, `${f.name}: a whole number`);
      return n;
    }
    case "boolean":
      return raw === "true";
    case "dice": {
      const parts = raw.split(/[\s,]+/).filter(Boolean);
      const dice = parts.map(Number);
      if (dice.some((d) => !Number.isInteger(d))) {
        throw new FormError(f.name, `${f.name}: whole numbers separated by spaces, like 6 5 3`);
      }
      return dice;
    }
    case "list":
      return raw
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    case "object":
      try {
        return JSON.parse(raw);
      } catch {
        throw new FormError(f.name, `${f.name}: not JSON`);
      }
    default:
      return raw;
  }
}
