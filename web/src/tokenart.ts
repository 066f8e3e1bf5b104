/**
 * Token art: one small inline SVG per kind of token (Ember by its Shade, Potential, Weight,
 * Strain, Favor, Time, Weather), so a draw on stream reads as a token, not a text box. Pure
 * drawing from the service's `kind` and `shade`; decorative (the name and value are text).
 */

import type { TokenKind } from "./model";

const NS = "http://www.w3.org/2000/svg";
/** a plain disc: the shape of a kind with none of its own */
const DISC = '<circle cx="24" cy="24" r="19"/>';

/** An Ember's Shade, a Favor token's relation → its colour. */
const SHADE_COLOUR: Record<string, string> = {
  control: "#5fa8ff",
  versatility: "#7ad88f",
  impulse: "#ff6a4d",
  gray: "#b9bcc4",
  xul: "#c58cff",
  xantyr: "#ffd24d",
};

/** Every kind (a new one is a `tsc` error here until it has its colour and shape). */
const KIND_COLOUR: Record<TokenKind, string> = {
  ember: "#ff9a3c",
  potential: "#b48cff",
  weight: "#9aa0aa",
  strain: "#ff8a3d",
  favor: "#ffd24d",
  time: "#6fd0e0",
  weather: "#9cc8ff",
  temporary: "#e0e0e0",
};

/** The shape of each kind, in a 48×48 box, drawn with `currentColor`. */
const SHAPES: Record<TokenKind, string> = {
  // a flame
  ember:
    '<path d="M24 4c3 9 12 13 12 25a12 12 0 0 1-24 0c0-6 3-9 6-13 0 5 2 8 5 8-2-7 0-14 1-20z"/>',
  // a four-pointed spark
  potential: '<path d="M24 3l5 16 16 5-16 5-5 16-5-16-16-5 16-5z"/>',
  // a weight stone
  weight: '<path d="M17 10h14l-2 6h7l6 26H6l6-26h7z"/>',
  // a cracked disc
  strain:
    '<circle cx="24" cy="24" r="19"/><path d="M22 5l6 13-7 6 8 9-5 10" fill="none" stroke="#111" stroke-width="3"/>',
  // a sun
  favor:
    '<circle cx="24" cy="24" r="10"/><path d="M24 2v8M24 38v8M2 24h8M38 24h8M8 8l6 6M34 34l6 6M8 40l6-6M34 14l6-6" stroke="currentColor" stroke-width="4" stroke-linecap="round"/>',
  // an hourglass
  time: '<path d="M12 4h24v4c0 8-8 12-8 16s8 8 8 16v4H12v-4c0-8 8-12 8-16s-8-8-8-16z"/>',
  // a cloud (a Weather token is drawn by its weather: WEATHER below)
  weather: '<path d="M14 30a9 9 0 0 1 1-18 12 12 0 0 1 22 3 8 8 0 0 1-1 15z"/>',
  // Purity, Link, RESTORE, VIGOR (T12): a disc
  temporary: DISC,
};

const CLOUD = '<path d="M14 30a9 9 0 0 1 1-18 12 12 0 0 1 22 3 8 8 0 0 1-1 15z"/>';
const STROKE = 'stroke="currentColor" stroke-width="3" stroke-linecap="round" fill="none"';

/**
 * One picture per kind of weather. The faces are the table's own words (rules.toml's
 * `[weather.bags]`, a table's `[weather.bags]`, the WorldKeeper's `set_weather`), so a
 * weather is matched by the first of these words its name holds; none: the plain cloud.
 */
const WEATHER: [string, RegExp, string][] = [
  [
    "storm",
    /storm|thunder|lightning|tremor|quake/,
    `${CLOUD}<path d="M25 31l-6 8h6l-4 8 10-11h-6l4-5z"/>`,
  ],
  [
    "snow",
    /snow|cold|frost|ice|freez|sleet|hail/,
    `<path d="M24 4v40M7 14l34 20M7 34l34-20M19 6l5 5 5-5M19 42l5-5 5 5" ${STROKE}/>`,
  ],
  ["rain", /rain|drizzl|shower/, `${CLOUD}<path d="M16 36l-3 7M25 36l-3 7M34 36l-3 7" ${STROKE}/>`],
  [
    "flood",
    /flood|wave|tide/,
    `<path d="M4 18q5-6 10 0t10 0 10 0 10 0M4 28q5-6 10 0t10 0 10 0 10 0M4 38q5-6 10 0t10 0 10 0 10 0" ${STROKE}/>`,
  ],
  [
    "drip",
    /drip|damp|wet|humid/,
    '<path d="M24 6c5 9 10 15 10 21a10 10 0 0 1-20 0c0-6 5-12 10-21z"/>',
  ],
  [
    "fog",
    /fog|mist|haze|smoke|foul|gas|miasma/,
    `<path d="M6 14h36M10 22h32M6 30h36M12 38h28" ${STROKE}/>`,
  ],
  [
    "wind",
    /wind|draught|draft|gust|breeze|gale/,
    `<path d="M4 16h26a5 5 0 1 0-5-5M4 26h34a5 5 0 1 1-5 5M4 36h18" ${STROKE}/>`,
  ],
  [
    "heat",
    /heat|hot|scorch|swelter|drought/,
    `<path d="M20 6a4 4 0 0 1 8 0v22a9 9 0 1 1-8 0z"/><path d="M34 10h6M34 18h6M34 26h6" ${STROKE}/>`,
  ],
  ["dark", /dark|night|shadow|black/, '<path d="M30 5a19 19 0 1 0 13 27A16 16 0 0 1 30 5z"/>'],
  [
    "sun",
    /clear|sun|fair|bright/,
    `<circle cx="24" cy="24" r="9"/><path d="M24 3v7M24 38v7M3 24h7M38 24h7M9 9l5 5M34 34l5 5M9 39l5-5M34 14l5-5" ${STROKE}/>`,
  ],
  [
    "still",
    /still|calm|quiet/,
    `<path d="M6 22h36M6 30h36" ${STROKE}/><circle cx="24" cy="12" r="4"/>`,
  ],
  ["cloud", /overcast|cloud|grey|gray/, CLOUD],
];

/** Which picture a weather's name gets: "storm", "snow", "rain" …, "cloud" when none fits. */
export function weatherKind(name: string): string {
  const words = name.toLowerCase();
  return WEATHER.find(([, match]) => match.test(words))?.[0] ?? "cloud";
}

/** The art of a token: an `<svg>` coloured by its Shade (an Ember, a Favor) or its kind; a
 *  Weather token by its `name` (see WEATHER). */
export function tokenArt(kind: TokenKind, shade: string | null, name = ""): SVGSVGElement {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 48 48");
  svg.setAttribute("class", `token-art art-${kind}`);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  // a kind this page was built without (a newer service): the gold of a token, a disc
  const colour = (shade && SHADE_COLOUR[shade]) || KIND_COLOUR[kind] || "#e8b64c";
  svg.style.color = colour;
  svg.setAttribute("fill", "currentColor");
  svg.innerHTML = SHAPES[kind] ?? DISC;
  if (kind === "weather") {
    const weather = weatherKind(name);
    svg.dataset.weather = weather;
    svg.innerHTML = WEATHER.find(([k]) => k === weather)?.[2] ?? CLOUD;
  }
  return svg;
}
