// Builds dist/: one classic script (IIFE) per page for Chrome 103 (OBS's browser source, and
// Mosquitto's http_dir, which sends no Content-Type: module scripts would be refused), plus the
// pages and the style sheet copied as they are.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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
  banner: { js: 'performance.mark("rhuna:script");' },
  logLevel: "warning",
});
// the socket opener every page runs first, at the top of its <head> (src/preconnect.ts)
const pre = await build({
  entryPoints: ["src/preconnect.ts"],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "chrome103",
  minify: true,
  charset: "ascii",
  write: false,
  logLevel: "warning",
});
const preconnect = pre.outputFiles[0].text;
// Each page is one file: Mosquitto's http_dir answers a request only on its main loop's tick
// (about 100 ms when nothing else wakes it), so every extra request costs the first paint.
const css = readFileSync("pages/rhuna.css", "utf8");
for (const f of readdirSync("pages")) {
  if (!f.endsWith(".html")) {
    copyFileSync(`pages/${f}`, `dist/${f}`);
    continue;
  }
  const name = f.slice(0, -5);
  const js = readFileSync(`dist/${name}.js`, "utf8").replace(
    /\n\/\/# sourceMappingURL=.*\n?$/,
    "\n",
  );
  const html = readFileSync(`pages/${f}`, "utf8")
    .replace('<script src="preconnect.js"></script>', () => `<script>${preconnect}</script>`)
    .replace('<link rel="stylesheet" href="rhuna.css" />', () => `<style>\n${css}</style>`)
    .replace(
      `<script src="${name}.js"></script>`,
      () => `<script>\n${js.replaceAll("</script", "<\\/script")}</script>`,
    );
  if (
    html.includes(`src="${name}.js"`) ||
    html.includes('href="rhuna.css"') ||
    html.includes('src="preconnect.js"') ||
    !html.includes("rhunaPreconnect")
  ) {
    throw new Error(`pages/${f}: could not inline its preconnect, script or style sheet`);
  }
  writeFileSync(`dist/${f}`, html);
}
writeFileSync("dist/BUILT", `${new Date().toISOString()}\n`);
console.log(`web: built ${pages.map((p) => `${p}.html`).join(", ")} into web/dist/`);
