/**
 * The payloads the service publishes (docs/mqtt.md), typed: the only file that names their keys.
 *
 * The types come from the service's own JSON Schemas (docs/state.schema.json for every retained
 * topic, docs/events.schema.json for every `…/events` message, docs/error.schema.json,
 * reply.schema.json and history.schema.json for those topics), generated into src/generated/
 * by gen-types.mjs before every type check and build: a key renamed in the service breaks
 * `tsc` here. Pages never read a payload directly: `model.ts` turns these into what they show.
 */

import type * as A from "./generated/audit";
import type * as B from "./generated/board";
import type * as E from "./generated/error";
import type { EventMessage as AnyEvent } from "./generated/events";
import type * as G from "./generated/gm";
import type * as H from "./generated/history";
import type * as R from "./generated/reply";
import type * as S from "./generated/state";
import type * as T from "./generated/topics";
import { PAGE_SECTIONS } from "./generated/topics";

export type Status = "online" | "offline";

/** one unsync of the board (`…/board`): where and what, in the table's words; `token`, what
 *  lies alone on that well, which the WorldKeeper's `accept_as_drawn` would count */
export type BoardAlert = B.BoardAlert;

/** the bag audit that runs, or the last one's answer (`…/audit`, the gm's): docs/readers.md */
export type AuditMessage = A.AuditMessage;

export type Hero = S.HeroView;
/** a bag by its id: `…/bags` with what is in it now (`tokens`); `…/state`'s `bags` without */
export type Bag = S.BagView;
export type BagToken = S.BagToken;
/** one combatant of the roster, in a fight or not (`…/state`'s `roster`) */
export type RosterEntry = S.RosterEntry;
export type DrawnToken = S.TokenView;
export type Contribution = S.ContributionView;
export type GroupResult = S.ResultView;
export type Performance = S.PerformanceView;
export type Chance = S.Percent;
export type Advice = S.Advice;
export type OddsGroup = S.OddsGroup;
export type Odds = S.OddsView;
/** an answer that may be computed off the table's turn (`odds.status`,
 *  `combat.forecast_status`): `ready`; `pending`, it follows for this very state; `too_big`,
 *  it cannot be computed exactly, and nothing approximate is published in its place */
export type AnswerStatus = S.OddsView["status"];
export type Weather = S.WeatherView;
export type Prompt = S.PromptView;
export type TimeBoard = S.TimeView;
export type Combatant = S.CombatantView;
export type Forecast = S.ForecastView;
export type Combat = S.CombatView;
/** which commands the table would take now (engine/legal.py): null or the refusal, by name */
export type Legal = S.LegalView;
export type Refusal = S.Refusal;
/** `…/state`: the whole table in one message. */
export type TableView = S.TableView1;
/** `…/costs`: what the open Performance has cost each hero (P13–P15), by hero id. */
export type HeroCost = S.CostView;
export type Costs = Record<string, HeroCost>;

/** `…/events`: one engine event in the bridge's envelope (a union over every event type).
 *  The stream also carries notices about the table (`type: "notice"`, no `seq`), which are
 *  not events: `connection.ts` keeps only messages with a numeric `seq`, so a notice never
 *  opens a gap (issue 30 item 6). */
export type EventMessage = Exclude<AnyEvent, NoticeMessage>;

/** `…/events`' stand-in for an event only the WorldKeeper may read (its `seq`, no words): the
 *  event itself is on `…/gm_events`, which the gm's login alone may read (docs/mqtt.md). */
export type WithheldMessage = Extract<AnyEvent, { type: "withheld" }>;

/** `…/events`' notice: two tokens in one well, and its end (no `seq`, never journaled). */
export type NoticeMessage = Extract<AnyEvent, { type: "notice" }>;

/** `…/error`: a refused command or an unknown tag (docs/error.schema.json). */
export type ErrorMessage = E.ErrorMessage;

/** `…/gm`, retained, the gm's login only: the whole roster (docs/gm.schema.json). */
export type GmMessage = G.GmMessage;

/** `…/reply`: the envelope every command received on MQTT gets back (docs/reply.schema.json). */
export type Reply = R.Reply;
/** the reply to a command the table took: its events are the `…/events` messages */
export type ReplyOk = R.ReplyOk;
/** the reply to a refused command: `error` is the refusal (code, message, rule, field, fix) */
export type ReplyError = R.ReplyError;

/** One narrated journal entry of `…/history` (`rhuna-table history --json`). */
export type HistoryEntry = H.HistoryEntry;

/** The last ended session's recap (`rhuna-table export`, docs/record.md); `href` null when the
 *  service serves none (no `[record] recap_url`). */
export type Recap = H.Recap;

/** `…/history`: the newest journal entries, oldest first, and the last session's recap
 *  (docs/history.schema.json). */
export type History = H.HistoryMessage;

/** The retained state topics under `rhuna/<table>/`, by their last topic level: the public
 *  pages' sections (null until it comes), and the others' (`…/bags`, every bag with what is in
 *  it now: the remote; `…/state`; `…/vocabulary`, the commands' JSON Schema) when a page follows
 *  them (ConnectionOptions.sections). Generated from the topic catalogue (docs/topics.json). */
export type Sections = T.Sections;

/** the sections the public pages follow by default: the topic catalogue's (docs/topics.json) */
export const SECTION_NAMES = PAGE_SECTIONS;
/** any retained topic of one level but `…/status` and `…/info`: `state` (the whole table in
 *  one message), `bags` (what is in each bag) and `vocabulary` (the commands' JSON Schema) only
 *  for pages that ask for them, the remote (the catalogue's `section`s) */
export type SectionName = T.SectionName;
