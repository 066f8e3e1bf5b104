// Builds dist/: one classic script (IIFE) per page for Chrome 103 (OBS's browser source, and
// Mosquitto's http_dir, which sends no Content-Type: module scripts would be refused), plus the
// pages and the style sheet copied as they are.
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const pages = readdirSync("src/pages")
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3));

mkdirSync("dist", { recursive: true });
await build({
  entryPoints: Object.fromEntries(pages.map((p) => [p, `src/pages/${p}.ts`])),
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "chrome103",
  outdir: "dist",
  minify: true,
  sourcemap: "linked",
  charset: "ascii",
  legalComments: "linked",
  logLevel: "warning",
});
for (const f of readdirSync("pages")) copyFileSync(`pages/${f}`, `dist/${f}`);
writeFileSync("dist/BUILT", `${new Date().toISOString()}\n`);
console.log(`web: built ${pages.map((p) => `${p}.html`).join(", ")} into web/dist/`);
