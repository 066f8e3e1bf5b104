// Generates src/generated/*.ts from the service's JSON Schemas (docs/state.schema.json: every
// retained topic; docs/events.schema.json: every …/events message; docs/history.schema.json,
// error.schema.json and reply.schema.json: …/history, …/error and …/reply), so a key renamed in
// the service breaks `tsc` here instead of leaving a blank on a stream. Run before the type
// check and the build (npm run types); the output is not committed.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { compile } from "json-schema-to-typescript";

const DOCS = process.env.RHUNA_DOCS ?? "../docs";
/** schema file (docs/<name>.schema.json) → the root type's name */
const NAMES = {
  state: "TableState",
  events: "EventMessage",
  history: "HistoryMessage",
  error: "ErrorMessage",
  reply: "Reply",
};

/** `{"$ref": "events.schema.json"}` (another schema file's root) → that file's generated type,
 *  imported: the reply's events are the events stream's messages, not a copy of their type */
function linkFiles(node, imports) {
  if (Array.isArray(node)) return node.map((n) => linkFiles(n, imports));
  if (node === null || typeof node !== "object") return node;
  const ref = typeof node.$ref === "string" ? /^([a-z]+)\.schema\.json$/.exec(node.$ref) : null;
  if (ref && ref[1] in NAMES) {
    imports.add(ref[1]);
    return { tsType: NAMES[ref[1]] };
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, linkFiles(v, imports)]));
}

mkdirSync("src/generated", { recursive: true });
for (const [name, root] of Object.entries(NAMES)) {
  // the root's title and $id would name its type: drop them, so the name is ours and stable
  const {
    title: _title,
    $id: _id,
    ...raw
  } = JSON.parse(readFileSync(`${DOCS}/${name}.schema.json`, "utf8"));
  const imports = new Set();
  const schema = linkFiles(raw, imports);
  const banner = [
    `/* Generated from docs/${name}.schema.json by web/gen-types.mjs: do not edit. */`,
    ...[...imports].map((file) => `import type { ${NAMES[file]} } from "./${file}";`),
  ].join("\n");
  const ts = await compile(schema, root, {
    bannerComment: banner,
    additionalProperties: false,
    unreachableDefinitions: true,
    format: false,
  });
  writeFileSync(`src/generated/${name}.ts`, ts);
}

// the topic catalogue (docs/topics.json, companion/mqtt/topics.py's CATALOGUE): the topics' names
// and the sections the public pages follow, so no page keeps its own list
const { topics } = JSON.parse(readFileSync(`${DOCS}/topics.json`, "utf8"));
for (const name of Object.keys(NAMES)) {
  if (!topics.some((t) => t.payload.split("#")[0] === `${name}.schema.json`))
    throw new Error(`docs/${name}.schema.json is the payload of no topic in docs/topics.json`);
}
const level = (t) => t.suffix.split("/")[0];
const sections = topics
  .filter((t) => t.retained && t.pages && !t.suffix.includes("/"))
  .map((t) => t.suffix);
const retained = topics.filter((t) => t.retained && !t.suffix.includes("/")).map(level);
writeFileSync(
  "src/generated/topics.ts",
  [
    "/* Generated from docs/topics.json by web/gen-types.mjs: do not edit. */",
    "/** every topic under `<base>/<table>/`, by its suffix (`<id>`, `<name>`: one level) */",
    `export const TOPICS = ${JSON.stringify(topics.map((t) => t.suffix))} as const;`,
    "/** the retained topics of one level (`…/state`, `…/odds` …), in the order a page subscribes */",
    `export const RETAINED = ${JSON.stringify(retained)} as const;`,
    "/** the retained sections the public pages follow unless a page says otherwise */",
    `export const PAGE_SECTIONS = ${JSON.stringify(sections)} as const;`,
    "",
  ].join("\n"),
);
console.log(
  `web: types generated from docs/{${Object.keys(NAMES).join(",")}}.schema.json and docs/topics.json`,
);
