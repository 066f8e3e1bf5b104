/**
 * gm.html's board card: the board's unsync (`…/board`) in words on every tab, until it is
 * resolved, and beside each well that holds one known token the WorldKeeper's "Accept as drawn"
 * (`accept_as_drawn`, docs/readers.md): the table counts it as laying it would, where the rules
 * allow it now, or refuses naming the rule (shown under the list).
 */

import * as commands from "../generated/commands";
import * as model from "../model";
import type { TableRecord } from "../store";
import { renderBoard } from "../views";
import { type Ctx, sender } from "./ui";

/** the outlet of every "Accept as drawn": one, under the list, so a refusal stays in sight */
export const ACCEPT = "accept-as-drawn";

export function renderBoardCard(t: TableRecord | undefined, ctx: Ctx): void {
  const box = renderBoard(model.board(t), false, (a) => {
    const token = a.token;
    if (token === null) return [];
    return [
      sender(ctx, ACCEPT, "Accept as drawn", () => commands.accept_as_drawn({ token }), {
        class: "btn accept",
        "data-accept": token,
      }),
    ];
  });
  const out = ctx.outlets.get(ACCEPT);
  if (out.parentElement !== box) box.append(out);
}
