/**
 * The Time Board: start the session, draw a Minor or Major token (picked from the band's bag, or
 * drawn by the service), resolve or cancel it; Rest and the Full Rest choices; the weather; and
 * every WorldKeeper prompt, answered on its own card.
 */

import { h } from "../dom";
import * as commands from "../generated/commands";
import type { TableRecord } from "../store";
import { noteCard } from "./note";
import {
  type Builder,
  type Ctx,
  card,
  commandForm,
  gate,
  row,
  seed,
  sender,
  tokenPicks,
} from "./ui";
import * as v from "./view";

function weatherButtons(
  t: TableRecord,
  ctx: Ctx,
  key: string,
  cmd: "draw_weather" | "start_session",
) {
  const refused = v.refusal(t, cmd);
  const draw = (bag: "overworld" | "underworld") =>
    cmd === "draw_weather"
      ? commands.draw_weather({ bag, seed: seed() })
      : commands.start_session({ bag, seed: seed() });
  return row(
    gate(
      sender(ctx, key, "Overworld", () => draw("overworld")),
      refused,
    ),
    gate(
      sender(ctx, key, "Underworld", () => draw("underworld")),
      refused,
    ),
  );
}

function fullRestChoices(t: TableRecord, ctx: Ctx, key: string): HTMLElement {
  const rest = v.time(t)?.rest;
  const resting = Object.entries(rest?.heroes ?? {})
    .filter(([, role]) => role !== "watch")
    .map(([id]) => id);
  const box = h("div", { class: "full-rest" });
  for (const id of resting) {
    const name = t.heroes[id]?.name ?? id;
    box.append(
      row(
        h("span", { class: "who" }, name),
        sender(ctx, key, "all Fatigue", () =>
          commands.choose_full_rest({
            hero: id,
            choice: "fatigue",
          }),
        ),
        sender(ctx, key, "1 Strain", () =>
          commands.choose_full_rest({
            hero: id,
            choice: "strain",
          }),
        ),
      ),
    );
  }
  return box;
}

/** A prompt's kind in words: every kind of the engine's closed vocabulary (PromptKindName in
 *  engine/contracts/terms.py, the generated `Prompt["kind"]`), so a kind added there is a
 *  `tsc` error here until it has its words. */
const PROMPT_KINDS: Record<v.Prompt["kind"], string> = {
  full_rest: "Full Rest",
  interrupt: "Interruption",
  weather: "Weather",
  opportunity: "Opportunity",
  event: "Event",
  escalation: "Escalation",
};

function promptTitle(p: v.Prompt): string {
  return `${PROMPT_KINDS[p.kind]} (prompt ${p.id})`;
}

function promptCard(t: TableRecord, ctx: Ctx, p: v.Prompt): HTMLElement {
  const key = `prompt-${p.id}`;
  const answers: (HTMLElement | null)[] = [];
  if (p.kind === "interrupt") {
    answers.push(
      row(
        sender(ctx, key, "It interrupts the Rest", () =>
          commands.answer_interruption({
            interrupts: true,
          }),
        ),
        sender(ctx, key, "It does not", () => commands.answer_interruption({ interrupts: false })),
      ),
    );
  } else {
    if (p.kind === "full_rest") answers.push(fullRestChoices(t, ctx, key));
    if (p.kind === "weather") answers.push(weatherButtons(t, ctx, key, "draw_weather"));
    answers.push(
      row(sender(ctx, key, "Done", () => commands.acknowledge_prompt({ prompt: p.id }))),
    );
  }
  const el = card(promptTitle(p), h("p", {}, p.text), ...answers, ctx.outlets.get(key));
  el.dataset.prompt = String(p.id);
  return el;
}

export const buildTime: Builder = (t, ctx) => {
  const b = v.time(t);
  if (!b) {
    return [
      card(
        "Start the session (T1)",
        h("p", { class: "hint" }, "Under open sky or below? The service draws the weather."),
        weatherButtons(t, ctx, "session", "start_session"),
        ctx.outlets.get("session"),
      ),
      noteCard(ctx),
    ];
  }
  const out: (HTMLElement | null)[] = [
    h(
      "p",
      { class: "summary" },
      `Day ${b.day} · ${b.band} · ${b.minor_done} Minor done · ${b.due} due · weather: ${b.weather?.name ?? "unknown"}`,
    ),
  ];
  const pending = b.last && !b.last.resolved ? b.last : null;
  if (pending) {
    out.push(
      card(
        `Drawn: ${pending.name}`,
        h("p", { class: "hint" }, `${pending.size} · ${pending.face}`),
        row(
          gate(
            sender(ctx, "time", "Resolve", () => commands.resolve_time()),
            v.refusal(t, "resolve_time"),
          ),
          gate(
            sender(ctx, "time", "Cancel the draw", () => commands.cancel_time_draw()),
            v.refusal(t, "cancel_time_draw"),
          ),
        ),
        ctx.outlets.get("time"),
      ),
    );
  } else {
    const bag = v.bag(t, `time.${b.band}`);
    const drawRefused = v.refusal(t, "draw_time");
    const picks = tokenPicks(
      ctx,
      "time",
      bag?.tokens ?? [],
      (id) => commands.draw_time({ token: id }),
      (n) => n,
      "data-token",
      drawRefused,
    );
    out.push(
      card(
        `Draw ${b.due === "major" ? "a Major" : "a Minor"} Time token`,
        row(
          gate(
            sender(ctx, "time", "Draw (the service draws)", () =>
              commands.draw_time({
                seed: seed(),
              }),
            ),
            drawRefused,
          ),
        ),
        h(
          "details",
          { class: "more" },
          h("summary", {}, `Or pick the token drawn from ${bag?.name ?? "the band's bag"}`),
          picks,
        ),
        ctx.outlets.get("time"),
      ),
    );
  }
  out.splice(1, 0, ctx.outlets.get("session"));
  for (const p of b.prompts) out.push(promptCard(t, ctx, p));
  // a prompt answered leaves the board: its reply stays where it was shown
  out.push(
    ctx.outlets.latest(
      "prompt-",
      b.prompts.map((p) => `prompt-${p.id}`),
    ),
  );
  if (b.rest) {
    // the Full Rest prompt's card holds the choices while it is on the board: shown once
    const asked = b.prompts.some((p) => p.kind === "full_rest");
    out.push(
      card(
        `Resting (${b.rest.kind}): ${b.rest.minor_draws} / ${b.rest.full_rest_at} Minor draws`,
        asked
          ? h("p", { class: "hint" }, "All Fatigue or 1 Strain: choose on the Full Rest prompt.")
          : fullRestChoices(t, ctx, "rest"),
        row(
          gate(
            sender(ctx, "rest", "End the Rest", () => commands.end_rest()),
            v.refusal(t, "end_rest"),
          ),
        ),
        ctx.outlets.get("rest"),
      ),
    );
  } else {
    out.push(
      card(
        "Rest (T7, T8)",
        row(
          gate(
            sender(ctx, "rest", "Safe Rest", () => commands.begin_rest({ kind: "safe" })),
            v.refusal(t, "begin_rest"),
          ),
          gate(
            sender(ctx, "rest", "Unsafe Rest", () => commands.begin_rest({ kind: "unsafe" })),
            v.refusal(t, "begin_rest"),
          ),
        ),
        ctx.outlets.get("rest"),
      ),
    );
  }
  out.push(
    card(
      "Weather (T1, T2)",
      weatherButtons(t, ctx, "weather", "draw_weather"),
      ctx.outlets.get("weather"),
    ),
    h(
      "details",
      { class: "more" },
      h("summary", {}, "More: who keeps watch, set the weather or the board"),
      commandForm(ctx, "begin_rest", "rest-more"),
      commandForm(ctx, "set_weather", "weather-more"),
      commandForm(ctx, "set_time", "set-time"),
    ),
    noteCard(ctx),
  );
  return out;
};
