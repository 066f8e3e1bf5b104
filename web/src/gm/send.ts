/**
 * Sending a command from the remote and showing its reply where it was sent.
 *
 * Nothing is assumed done: the outlet says "sending…" until the service's reply arrives, then
 * what the table did (the events in the service's own words) or the refusal with its rule id
 * and fix. A publish the broker refuses (an account that may not command this table) and a
 * reply that never comes are shown as such, never as done.
 */

import type { Connection } from "../connection";
import { h } from "../dom";
import type { Command } from "../generated/commands";
import type { ReplyError, ReplyOk } from "../payloads";

export type Outcome =
  | { state: "ok"; reply: ReplyOk }
  | { state: "refused"; reply: ReplyError }
  | { state: "failed"; message: string };

export function outlet(): HTMLElement {
  return h("output", { class: "reply", "aria-live": "polite", "data-state": "idle" });
}

function show(out: HTMLElement, outcome: Outcome | "pending", what: string): void {
  out.replaceChildren();
  if (outcome === "pending") {
    out.dataset.state = "pending";
    out.append(h("span", {}, `sending ${what}…`));
    return;
  }
  out.dataset.state = outcome.state;
  if (outcome.state === "ok") {
    const events = outcome.reply.data.events ?? [];
    out.append(h("strong", {}, `✓ ${what}`));
    const list = h("ul", { class: "reply-events" });
    for (const e of events) list.append(h("li", {}, e.text));
    if (events.length) out.append(list);
  } else if (outcome.state === "refused") {
    const err = outcome.reply.error;
    out.append(
      h("strong", {}, `✗ ${what} refused`),
      ...[
        err?.rule ? h("span", { class: "rule" }, ` [${err.rule}]`) : null,
        h("p", { class: "reply-message" }, err?.message ?? "refused"),
        err?.field ? h("p", { class: "reply-field" }, `field: ${err.field}`) : null,
        err?.fix ? h("p", { class: "reply-fix" }, `fix: ${err.fix}`) : null,
      ].filter((x): x is HTMLElement => x !== null),
    );
  } else {
    out.append(h("strong", {}, `✗ ${what}: not done`), h("p", {}, outcome.message));
  }
}

declare const formed: unique symbol;
/** A command a generated form read from its fields (forms.ts, readFields): any command of the
 *  schema, so tsc cannot know its shape (the service checks it). A card builds a `Command`. */
export type FormCommand = Record<string, unknown> & { cmd: string; readonly [formed]: true };

/** Send `command`, disabling `buttons` until the reply, and show the outcome in `out`. */
export async function send(
  connection: Connection,
  command: Command | FormCommand,
  out: HTMLElement,
  buttons: readonly HTMLButtonElement[] = [],
): Promise<Outcome> {
  const what = String(command.cmd);
  out.dataset.sent = String(Date.now());
  show(out, "pending", what);
  for (const b of buttons) b.disabled = true;
  let outcome: Outcome;
  try {
    // signed: the history names the remote (`gm:N`) apart from the CLI and any script
    const reply = await connection.send({ ...command, source: "gm" });
    outcome = reply.status === "ok" ? { state: "ok", reply } : { state: "refused", reply };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    outcome = {
      state: "failed",
      message: /not authori[sz]ed/i.test(message)
        ? `the broker refused it (${message}): this page's account may not command the table`
        : `${message} — it may or may not have been applied: look at the table`,
    };
  }
  if (out.isConnected) {
    show(out, outcome, what);
    out.scrollIntoView({ block: "nearest" });
  }
  for (const b of buttons) b.disabled = false;
  return outcome;
}
