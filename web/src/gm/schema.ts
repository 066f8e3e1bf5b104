/**
 * The command vocabulary, read from its JSON Schema (docs/commands.schema.json, bundled at build
 * time): one entry per command with its fields, so the remote's forms are generated, never
 * hand-written per command. A command added to the engine appears here after `make web`.
 */

import schemaJson from "../../../docs/commands.schema.json";

export type FieldType = "string" | "integer" | "boolean" | "array" | "object";

export interface FieldSpec {
  name: string;
  type: FieldType;
  description: string;
  required: boolean;
  enum: string[] | null;
  /** element type of an array field */
  items: FieldType | null;
  minimum: number | null;
  maximum: number | null;
}

export interface CommandSpec {
  name: string;
  description: string;
  /** rule ids the command applies ("Rules: P19, P1." at the end of its description) */
  rules: string[];
  fields: FieldSpec[];
}

/** the vocabulary's transport fields: the connection sets them, a form never shows them */
const TRANSPORT = new Set(["cmd", "id", "source", "transaction"]);

interface JsonProperty {
  const?: unknown;
  type?: string | string[];
  description?: string;
  enum?: string[];
  items?: { type?: string };
  minimum?: number;
  maximum?: number;
}

interface JsonCommand {
  title: string;
  description?: string;
  /** (a key absent from this command is `undefined` in the bundled JSON's inferred type) */
  properties: Record<string, JsonProperty | undefined>;
  required?: string[];
}

export function commandsFrom(schema: { oneOf: readonly JsonCommand[] }): CommandSpec[] {
  return schema.oneOf.map((c) => {
    const text = c.description ?? "";
    const m = /Rules: ([^.]*)\.\s*$/.exec(text);
    const required = new Set(c.required ?? []);
    const fields: FieldSpec[] = [];
    for (const [name, p] of Object.entries(c.properties)) {
      if (p === undefined || TRANSPORT.has(name)) continue;
      const type = (Array.isArray(p.type) ? p.type[0] : p.type) as FieldType;
      fields.push({
        name,
        type,
        description: p.description ?? "",
        required: required.has(name),
        enum: p.enum ?? null,
        items: (p.items?.type as FieldType | undefined) ?? null,
        minimum: p.minimum ?? null,
        maximum: p.maximum ?? null,
      });
    }
    return {
      name: c.title,
      description: m ? text.slice(0, m.index).trim() : text,
      rules: m?.[1] ? m[1].split(",").map((r) => r.trim()) : [],
      fields,
    };
  });
}

/** The commands the page knows: the copy bundled at build time, until the service's own
 *  retained `…/vocabulary` arrives and replaces it (then a command the service gained since the
 *  page was built appears too). */
export const COMMANDS: CommandSpec[] = commandsFrom(schemaJson);
export const source = { from: "bundled" as "bundled" | "service", schema: null as unknown };

/** Use the service's published schema; false when it is not one (the bundled copy stays). */
export function useVocabulary(schema: unknown): boolean {
  if (schema === source.schema) return false;
  const oneOf = (schema as { oneOf?: unknown } | null)?.oneOf;
  if (!Array.isArray(oneOf) || !oneOf.length) return false;
  let commands: CommandSpec[];
  try {
    commands = commandsFrom(schema as { oneOf: JsonCommand[] });
  } catch {
    return false;
  }
  COMMANDS.splice(0, COMMANDS.length, ...commands);
  source.from = "service";
  source.schema = schema;
  return true;
}

export function spec(name: string): CommandSpec {
  const found = COMMANDS.find((c) => c.name === name);
  if (!found) throw new Error(`the vocabulary has no command ${name}`);
  return found;
}
