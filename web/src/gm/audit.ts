/**
 * gm.html's bag audit (docs/readers.md, "A bag audit before play"): pick a bag, start its audit
 * (`audit_bag`), pass its tokens over any reader one after another; the retained `…/audit` (the
 * gm's) shows each read while it runs and the answer at its end: seen N of M, what is missing,
 * what is extra, what belongs to another bag. "End audit" (`audit_bag` with no bag) ends it
 * before every token is seen. Nothing is drawn meanwhile: the audit is not play.
 */

import { h } from "../dom";
import * as commands from "../generated/commands";
import type { AuditMessage } from "../payloads";
import type { TableRecord } from "../store";
import { type Ctx, card, chosen, remember, row, sender } from "./ui";
import * as v from "./view";

/** the outlet of both buttons: a refusal (a bag the table lacks) stays under them */
export const AUDIT = "audit-bag";

/** The card, made once (its select keeps the WorldKeeper's choice), filled at every render. */
export function renderAuditCard(t: TableRecord | undefined, ctx: Ctx): void {
  let box = document.getElementById("bag-audit");
  if (!box) {
    const pick = remember(
      h("select", {
        name: "bag",
        "aria-label": "Bag to audit",
        "data-audit-bag": "",
        class: "wide", // its own row: a bag's name is never cut (issue 41 item 15)
      }) as HTMLSelectElement,
      "audit/bag",
    );
    const start = sender(ctx, AUDIT, "Start audit", () =>
      commands.audit_bag({ bag: chosen(pick) }),
    );
    start.dataset.send = "audit_bag";
    const end = sender(ctx, AUDIT, "End audit", () => commands.audit_bag({}), {
      class: "btn",
      "data-audit-end": "",
    });
    box = card(
      "Audit a bag before play",
      row(pick, start, end),
      h(
        "p",
        { class: "hint" },
        "Pass the bag's tokens over any reader, one after another: nothing is drawn.",
      ),
      h("div", { class: "audit-report", role: "status", "aria-live": "polite" }),
      ctx.outlets.get(AUDIT),
    );
    box.id = "bag-audit";
    document.getElementById("performance-panel")?.before(box);
  }
  fillBags(box.querySelector<HTMLSelectElement>("select[data-audit-bag]"), t);
  const report = box.querySelector<HTMLElement>(".audit-report");
  if (report) showReport(report, t?.audit ?? null);
}

function fillBags(pick: HTMLSelectElement | null, t: TableRecord | undefined): void {
  if (!pick || !t) return;
  const bags = Object.entries(v.bags(t));
  const key = bags.map(([id]) => id).join("|");
  if (pick.dataset.bags === key) return;
  const was = pick.value;
  pick.replaceChildren(...bags.map(([id, bag]) => h("option", { value: id }, bag.name)));
  if (bags.some(([id]) => id === was)) pick.value = was;
  pick.dataset.bags = key;
}

function showReport(el: HTMLElement, audit: AuditMessage | null): void {
  const key = JSON.stringify(audit);
  if (el.dataset.key === key) return;
  el.dataset.key = key;
  if (audit === null) {
    el.replaceChildren();
    return;
  }
  el.dataset.running = String(audit.running);
  if (audit.running) {
    el.replaceChildren(
      h(
        "p",
        { class: "audit-count" },
        `Auditing ${audit.bag_name}: ${audit.seen} of ${audit.expected}`,
      ),
      h("p", { class: "audit-last" }, audit.last ?? "pass its tokens over a reader"),
    );
    return;
  }
  const [head, ...rest] = audit.lines;
  el.replaceChildren(
    h("p", { class: "audit-answer" }, `${audit.complete ? "✓" : "⚠"} ${head ?? ""}`),
    h("ul", { class: "audit-lines" }, ...rest.map((line) => h("li", {}, line.trim()))),
  );
}
