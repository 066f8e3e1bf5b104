/**
 * The remote's building blocks: big buttons, reply outlets that survive a repaint, panels that
 * are rebuilt only when what they show changed (so a half-filled form is not wiped every second).
 */

import type { Connection } from "../connection";
import { h, shown } from "../dom";
import type { Command, CommandName, FieldsOf } from "../generated/commands";
import type { Refusal } from "../payloads";
import type { TableRecord } from "../store";
import { type Choices, FormError, fieldsFor, readFields } from "./forms";
import { spec } from "./schema";
import { type FormCommand, type Outcome, outlet, send } from "./send";

/**
 * Which part of the published state a reply belongs to, by the outlet's key: the Performance
 * panel's outlets to the Performance, the Time Board's to `…/time`, the fight's to `…/combat`;
 * anything else (Undo, "All commands") to the whole table.
 */
export type Scope = "performance" | "time" | "combat" | "table";

const PERFORMANCE = ["begin", "declare-", "draw-", "perf", "favor-more"];
const TIME = ["time", "session", "prompt-", "rest", "weather", "set-time"];
const COMBAT = ["start", "join", "end", "act", "add", "tool-"];

export function scopeOf(key: string): Scope {
  const cmd = key.startsWith("all-") ? key.slice(4) : null;
  if (cmd !== null) {
    return /combat|attack|wound|injur|condition|act$|turn/.test(cmd)
      ? "combat"
      : /time|rest|weather|prompt|interruption|session|watch/.test(cmd)
        ? "time"
        : /perform|declare|draw|favor|resolve$|reset/.test(cmd)
          ? "performance"
          : "table";
  }
  if (PERFORMANCE.some((p) => key.startsWith(p))) return "performance";
  if (TIME.some((p) => key.startsWith(p))) return "time";
  if (COMBAT.some((p) => key.startsWith(p))) return "combat";
  return "table";
}

/** What each scope looked like in one published state (view.ts reads the payloads). */
export interface Marks {
  /** the open Performance's number, null when there is none */
  performance: number | null;
  /** a fingerprint of each section, as published */
  sections: Record<Scope, string>;
}

/**
 * One reply outlet per place a command is sent from, kept across repaints.
 *
 * A reply belongs to the state it was sent in, never to the page's clock (issue 32):
 * - any reply on the Performance panel belongs to its Performance (by number): a new
 *   Performance clears the last one's replies ("✓ declare" on Aria's new card would be a lie).
 *   A reply sent with no Performance open (Begin) belongs to the Performance that opens next;
 *   while none is open the last one's replies stay in sight (what closed it).
 * - a refusal belongs to the section it was refused in: once a later state arrives whose
 *   section differs from the one at sending (the weather drawn after "draw_time refused [T1]
 *   weather unknown"), its cause may be gone and it is cleared. A refused command changed
 *   nothing, so the state at sending is the state it was refused in. This is what a WorldKeeper
 *   expects: the refusal stays while nothing it depends on moved, and goes once the table did.
 * - a reply the table took ("✓ draw_time") stays until the next command, on the Time Board and
 *   in the fight, where there is no number to key it to.
 * - only the newest command's reply is shown (issue 41 item 13): sending a command from any
 *   place (Undo in the footer too) clears every other place's settled reply, so an old
 *   "✓ undo · Undone declare…" never stays under the "✓ declare" that put it back, nor a
 *   "✓ declare" beside the Undo that took it back. A reply still on its way is left to come
 *   (the WorldKeeper has not seen it yet).
 */
export class Outlets {
  private readonly map = new Map<string, HTMLElement>();
  private readonly stamps = new Map<string, { marks: Marks; scope: Scope }>();
  private marks: Marks | null = null;

  get(key: string): HTMLElement {
    let el = this.map.get(key);
    if (!el) {
      el = outlet();
      el.dataset.for = key;
      this.map.set(key, el);
    }
    return el;
  }

  /** Record the state outlet `key`'s command is sent in; its reply is now the newest, so every
   *  other settled reply goes (rule above). */
  stamp(key: string): void {
    for (const [other, el] of this.map) {
      if (other !== key && el.dataset.state !== "pending") this.clear(other, el);
    }
    if (this.marks) this.stamps.set(key, { marks: this.marks, scope: scopeOf(key) });
    else this.stamps.delete(key);
  }

  private clear(key: string, el: HTMLElement): void {
    el.replaceChildren();
    el.dataset.state = "idle";
    delete el.dataset.sent;
    this.stamps.delete(key);
  }

  /** A new published state: clear the replies that no longer belong to it (rule above). */
  observe(marks: Marks): void {
    this.marks = marks;
    for (const [key, stamp] of this.stamps) {
      const el = this.map.get(key);
      if (!el || el.dataset.state === "pending") continue;
      const was = stamp.marks;
      let stale = false;
      if (stamp.scope === "performance" && marks.performance !== null) {
        if (was.performance === null) {
          // sent with no Performance open: it belongs to the one that opened next
          stamp.marks = { ...was, performance: marks.performance };
        } else stale = was.performance !== marks.performance;
      }
      if (!stale && ["refused", "invalid", "failed"].includes(el.dataset.state ?? "")) {
        stale = was.sections[stamp.scope] !== marks.sections[stamp.scope];
      }
      if (stale) this.clear(key, el);
    }
  }

  /** The outlet (key starting with `prefix`) that sent last, unless its key is in `open`. */
  latest(prefix: string, open: readonly string[]): HTMLElement | null {
    let best: HTMLElement | null = null;
    for (const [key, el] of this.map) {
      if (!key.startsWith(prefix) || open.includes(key) || !el.dataset.sent) continue;
      if (!best || Number(el.dataset.sent) > Number(best.dataset.sent)) best = el;
    }
    return best;
  }
}

/** What the WorldKeeper chose or typed, kept across repaints (a hero's sheet changing must
 *  not wipe a Difficulty picked a moment ago). Keyed by place and field. */
const memory = new Map<string, string>();

export function remember<T extends HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(
  el: T,
  key: string,
): T {
  const kept = memory.get(key);
  if (kept !== undefined) {
    if (el instanceof HTMLInputElement && el.type === "checkbox") el.checked = kept === "true";
    else if (
      !(el instanceof HTMLSelectElement) ||
      Array.from(el.options).some((o) => o.value === kept)
    ) {
      el.value = kept;
    }
  }
  const save = () =>
    memory.set(
      key,
      el instanceof HTMLInputElement && el.type === "checkbox" ? String(el.checked) : el.value,
    );
  el.addEventListener("change", save);
  el.addEventListener("input", save);
  return el;
}

export function recall(key: string): string | undefined {
  return memory.get(key);
}

export function keep(key: string, value: string): void {
  memory.set(key, value);
}

export interface Ctx {
  connection: Connection;
  outlets: Outlets;
  table: string;
  choices: Choices;
  /** paint the page again now (the dock's hero picked: nothing published changed) */
  repaint?: () => void;
}

/** A seed for the service's dice: the page never rolls, it only says "roll" (the engine does). */
export function seed(): number {
  const a = new Uint32Array(1);
  crypto.getRandomValues(a);
  return (a[0] ?? 0) % 2_147_483_647;
}

/** A select's value as its command field's type: the select offers the field's enum (the
 *  service refuses any other value, naming the field). */
export function chosen<T extends string>(select: HTMLSelectElement): T {
  return select.value as T;
}

/** A button that sends `command()` (a command the card builds, typed by the vocabulary's
 *  schema: generated/commands.ts) and shows the reply in the outlet `key`. */
export function sender(
  ctx: Ctx,
  key: string,
  label: string,
  command: () => Command | null,
  attrs: Record<string, string> = {},
  after: ((outcome: Outcome) => void) | null = null,
): HTMLButtonElement {
  return button(ctx, key, label, command, attrs, after);
}

/** `sender`'s button, also for a generated form's command (`commandForm`). */
function button(
  ctx: Ctx,
  key: string,
  label: string,
  command: () => Command | FormCommand | null,
  attrs: Record<string, string> = {},
  after: ((outcome: Outcome) => void) | null = null,
): HTMLButtonElement {
  const b = h("button", { type: "button", class: "btn", ...attrs }, label) as HTMLButtonElement;
  b.addEventListener("click", () => {
    let cmd: Command | FormCommand | null;
    try {
      cmd = command();
    } catch (e) {
      const out = ctx.outlets.get(key);
      ctx.outlets.stamp(key);
      out.dataset.state = "invalid";
      out.textContent = shown(e instanceof Error ? `✗ ${e.message}` : String(e));
      return;
    }
    if (!cmd) return;
    ctx.outlets.stamp(key);
    void send(ctx.connection, cmd, ctx.outlets.get(key), [b]).then((o) => after?.(o));
  });
  return b;
}

/** the hints' texts → their element's id, in one hidden box (aria-describedby reads hidden text) */
const hintIds = new Map<string, string>();

function hintId(text: string): string {
  let id = hintIds.get(text);
  if (id) return id;
  id = `why-${hintIds.size + 1}`;
  hintIds.set(text, id);
  let box = document.getElementById("hints");
  if (!box) {
    box = h("div", { id: "hints", hidden: true });
    document.body.append(box);
  }
  box.append(h("span", { id }, text));
  return id;
}

/**
 * Disable `b` when the engine says the table would refuse its command now (view.ts, refusal),
 * with the refusal as its hint: `title` for a pointer, `aria-describedby` for a screen reader,
 * the rule id under the label (the label stays the button's name), and the refusal's words
 * under its row when it is tapped. `aria-disabled`, not `disabled`: a disabled button takes no
 * tap, and a phone has no pointer to show a `title`, so a thumb on "Resolve P6" learnt nothing.
 * The tap never sends (caught before the sender's own listener). Null: `b` as it is.
 */
export function gate<T extends HTMLButtonElement>(b: T, refused: Refusal | null): T {
  if (!refused) return b;
  const rule = refused.rule ? `[${refused.rule}] ` : "";
  const text = `${rule}${refused.message}${refused.fix ? ` — ${refused.fix}` : ""}`;
  b.setAttribute("aria-disabled", "true");
  b.title = shown(text);
  b.dataset.refused = refused.rule ?? refused.code;
  b.setAttribute("aria-describedby", hintId(text));
  if (refused.rule) b.append(h("small", { class: "why", "aria-hidden": "true" }, refused.rule));
  b.addEventListener(
    "click",
    (e) => {
      e.preventDefault();
      e.stopImmediatePropagation();
      whyNot(b, text);
    },
    { capture: true },
  );
  return b;
}

/** The refusal's words under a gated button's row (one note a row, the newest tapped). */
function whyNot(b: HTMLElement, text: string): void {
  const row = b.closest(".row") ?? b;
  const next = row.nextElementSibling;
  const note =
    next instanceof HTMLElement && next.classList.contains("why-not")
      ? next
      : h("p", { class: "why-not", role: "status" });
  note.textContent = shown(`${b.firstChild?.textContent?.trim() ?? ""}: ${text}`);
  if (note !== next) row.after(note);
}

/**
 * A generated form for command `name` (schema.ts + forms.ts) with some fields preset; its own
 * Send button and reply outlet. This is how every hand-made panel reaches the rarer commands.
 */
export function commandForm<N extends CommandName>(
  ctx: Ctx,
  name: N,
  key: string,
  preset: Partial<FieldsOf<Extract<Command, { cmd: N }>>> = {},
  shown: readonly (keyof FieldsOf<Extract<Command, { cmd: N }>> & string)[] | null = null,
  label = "Send",
): HTMLElement {
  const s = spec(name);
  const fields = fieldsFor(s, ctx.choices, preset, shown);
  for (const el of Array.from(
    fields.querySelectorAll<HTMLInputElement>("input, select, textarea"),
  )) {
    remember(el, `${key}/${el.name || `${el.dataset.of}=${el.value}`}`);
  }
  const b = button(ctx, key, label, () => {
    try {
      return readFields(s, fields);
    } catch (e) {
      if (e instanceof FormError) {
        fields.querySelector<HTMLElement>(`[name="${e.field}"]`)?.focus();
      }
      throw e;
    }
  });
  b.dataset.send = name;
  return h("div", { class: "command-form", "data-cmd": name }, fields, b, ctx.outlets.get(key));
}

/** A panel rebuilt only when `key` changes. */
export class Panel {
  private shown: string | null = null;
  /** the newest repaint held back while the WorldKeeper is typing in this panel */
  private held: { key: string; build: () => (HTMLElement | null)[] } | null = null;

  constructor(readonly el: HTMLElement) {
    // the held repaint happens once the fingers leave the panel's fields
    el.addEventListener("focusout", (e) => {
      const next = (e as FocusEvent).relatedTarget;
      if (this.held && !(next instanceof Node && this.el.contains(next) && isField(next))) {
        const { key, build } = this.held;
        // a button of this panel took the focus: let its click land first
        if (next instanceof Node && this.el.contains(next)) {
          setTimeout(() => this.flush(key), 250);
        } else {
          this.held = null;
          this.refresh(key, build);
        }
      }
    });
  }

  /**
   * Repaint when ``key`` (what the panel shows) changed. Never under the fingers: while a field
   * of this panel has the focus, a repaint would wipe what is being typed (a token laid, a
   * fight's tick), so the newest one waits until the focus leaves the field.
   */
  refresh(key: string, build: () => (HTMLElement | null)[]): void {
    if (key === this.shown) {
      this.held = null;
      return;
    }
    const active = document.activeElement;
    if (active && this.el.contains(active) && isField(active)) {
      this.held = { key, build };
      return;
    }
    this.held = null;
    this.shown = key;
    // a section the WorldKeeper opened stays open through the repaint
    const open = new Set(
      Array.from(this.el.querySelectorAll("details[open] > summary")).map((x) => x.textContent),
    );
    this.el.replaceChildren(...build().filter((x): x is HTMLElement => x !== null));
    for (const summary of Array.from(this.el.querySelectorAll("details > summary"))) {
      if (open.has(summary.textContent)) summary.parentElement?.setAttribute("open", "");
    }
  }

  private flush(key: string): void {
    if (this.held && this.held.key === key) {
      const { build } = this.held;
      this.held = null;
      this.refresh(key, build);
    }
  }
}

/** An element the WorldKeeper types or chooses in (a repaint would lose its value). */
function isField(el: Node): boolean {
  return (
    el instanceof HTMLInputElement ||
    el instanceof HTMLSelectElement ||
    el instanceof HTMLTextAreaElement
  );
}

export function card(title: string, ...body: (HTMLElement | string | null)[]): HTMLElement {
  return h("div", { class: "card" }, h("h3", {}, title), ...body);
}

export function row(...items: (HTMLElement | null)[]): HTMLElement {
  return h("div", { class: "row" }, ...items);
}

/**
 * One button per kind of token in a bag (same name: the same token for the game), with how
 * many of it are in the bag; pressing it sends ``command(id)`` for one of them.
 */
export function tokenPicks(
  ctx: Ctx,
  key: string,
  tokens: readonly { id: string; name: string }[],
  command: (id: string) => Command,
  label: (name: string) => string = (n) => n,
  attr = "data-token",
  refused: Refusal | null = null,
): HTMLElement {
  const byName = new Map<string, string[]>();
  for (const t of tokens) byName.set(t.name, [...(byName.get(t.name) ?? []), t.id]);
  const box = h("div", { class: "row picks" });
  for (const [name, ids] of byName) {
    const first = ids[0] as string;
    const text = label(name) + (ids.length > 1 ? ` ×${ids.length}` : "");
    box.append(
      gate(
        sender(ctx, key, text, () => command(first), { [attr]: first, class: "btn token" }),
        refused,
      ),
    );
  }
  return box;
}

export type Builder = (t: TableRecord, ctx: Ctx) => (HTMLElement | null)[];
