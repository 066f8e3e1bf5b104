/**
 * A WorldKeeper's note (I-T13): a line kept with the night's history and recap, changing nothing
 * in the game. Worldkeeper-only unless marked for the table display or the public pages; the
 * pages filter by that mark (the engine's `audience`), never by the words.
 */

import { h } from "../dom";
import * as commands from "../generated/commands";
import { type Ctx, card, chosen, remember, row, sender } from "./ui";

/** the longest note: every string's bound, `limits.string_length` (docs/rules.md, I-T13) */
const LONGEST = 200;

export function noteCard(ctx: Ctx): HTMLElement {
  const key = "note";
  const text = remember(
    h("textarea", {
      name: "text",
      rows: 2,
      maxlength: LONGEST,
      placeholder: "What happened, in a line",
      "aria-label": "Note",
    }) as HTMLTextAreaElement,
    `${key}/text`,
  );
  const audience = remember(
    h(
      "select",
      { name: "audience", "aria-label": "Who may read it" },
      h("option", { value: "worldkeeper" }, "Only me"),
      h("option", { value: "table" }, "The table too"),
      h("option", { value: "public" }, "Public (stream, wall)"),
    ) as HTMLSelectElement,
    `${key}/audience`,
  );
  const send = sender(ctx, key, "Keep the note", () => {
    const words = text.value.trim();
    if (!words) throw new Error("note: write its words first (I-T13)");
    return commands.note({ text: words, audience: chosen(audience) });
  });
  send.dataset.send = "note";
  const el = card(
    "A note for the night (I-T13)",
    text,
    row(audience, send),
    h(
      "p",
      { class: "hint" },
      "Undo does not take a note back: a wrong one is followed by another.",
    ),
    ctx.outlets.get(key),
  );
  el.dataset.note = "";
  return el;
}
