// Generates src/generated/*.ts from the service's JSON Schemas (docs/state.schema.json: every
// retained topic; docs/events.schema.json: every …/events message), so a key renamed in the
// service breaks `tsc` here instead of leaving a blank on a stream. Run before the type check
// and the build (npm run types); the output is not committed.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { compile } from "json-schema-to-typescript";

const DOCS = process.env.RHUNA_DOCS ?? "../docs";
const SCHEMAS = { state: `${DOCS}/state.schema.json`, events: `${DOCS}/events.schema.json` };
const NAMES = { state: "TableState", events: "EventMessage" };

mkdirSync("src/generated", { recursive: true });
for (const [name, path] of Object.entries(SCHEMAS)) {
  // the root's title and $id would name its type: drop them, so the name is ours and stable
  const { title: _title, $id: _id, ...schema } = JSON.parse(readFileSync(path, "utf8"));
  const ts = await compile(schema, NAMES[name], {
    bannerComment: `/* Generated from docs/${name}.schema.json by web/gen-types.mjs: do not edit. */`,
    additionalProperties: false,
    unreachableDefinitions: true,
    format: false,
  });
  writeFileSync(`src/generated/${name}.ts`, ts);
}
console.log("web: types generated from docs/state.schema.json and docs/events.schema.json");
