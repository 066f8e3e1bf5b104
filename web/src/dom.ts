/**
 * Tiny DOM helpers: build elements, and keep keyed children so new ones can animate in. Every
 * string they put on a page goes through {@link shown}: text is text.
 */

type Child = Node | string | number | null | undefined | false;

/** The attributes a reader sees (a tooltip) or hears (a screen reader). */
const SEEN = new Set(["title", "aria-label", "alt", "placeholder"]);

/**
 * A control character but a newline (C0, DEL, C1), or a bidi embedding, override or isolate
 * (U+202A–U+202E, U+2066–U+2069): settings/plain.py's UNSAFE.
 */
function unsafe(c: number): boolean {
  return (
    (c <= 0x1f && c !== 0x0a) ||
    (c >= 0x7f && c <= 0x9f) ||
    (c >= 0x202a && c <= 0x202e) ||
    (c >= 0x2066 && c <= 0x2069)
  );
}

/**
 * `text` with each unsafe character written as its escape (`\x1b`, `\u202e`), as
 * settings/plain.py's `shown()` writes it on the terminal and in the CSV: a name an older
 * journal or a table file holds with a U+202E never reverses the text around it on a page
 * (issue 45 item 9). Every string the pages put into the DOM goes through it.
 */
export function shown(text: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!unsafe(c)) continue;
    const hex = c.toString(16);
    const written = c < 0x100 ? `\\x${hex.padStart(2, "0")}` : `\\u${hex.padStart(4, "0")}`;
    out += text.slice(from, i) + written;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

export function h(
  tag: string,
  attrs: Record<string, string | number | boolean | null | undefined> = {},
  ...children: Child[]
): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    // a hint a reader sees or hears is text; a key (data-hero, value) stays what it matches
    el.setAttribute(k, v === true ? "" : SEEN.has(k) ? shown(String(v)) : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "object" ? c : shown(String(c)));
  }
  return el;
}

/**
 * Make `parent`'s children the `items`, reusing the element of every key already there (so a
 * token that stays does not animate again) and marking new ones with the class `arrive`.
 */
export function keyed<T>(
  parent: HTMLElement,
  items: readonly T[],
  key: (item: T) => string,
  make: (item: T) => HTMLElement,
  animate: boolean,
): void {
  const old = new Map<string, HTMLElement>();
  for (const el of Array.from(parent.children)) {
    if (el instanceof HTMLElement && el.dataset.key !== undefined) old.set(el.dataset.key, el);
  }
  const next: HTMLElement[] = [];
  for (const item of items) {
    const k = key(item);
    let el = old.get(k);
    if (!el) {
      el = make(item);
      el.dataset.key = k;
      if (animate) {
        el.classList.add("arrive");
        el.addEventListener("animationend", () => el?.classList.remove("arrive"), { once: true });
      }
    }
    next.push(el);
  }
  // move only what moved: re-inserting an element would restart its animation
  next.forEach((el, i) => {
    if (parent.children[i] !== el) parent.insertBefore(el, parent.children[i] ?? null);
  });
  while (parent.children.length > next.length) parent.lastElementChild?.remove();
}

/** Set text (as {@link shown}); when it changes (and `animate`), replay the `bump` animation.
 *  Text that appears (the element was empty: the page's first paint) is not a change, and
 *  replaying costs a layout then (`offsetWidth`), so it does not bump. */
export function setText(el: HTMLElement, raw: string, animate: boolean): void {
  const text = shown(raw);
  const before = el.textContent;
  if (before === text) return;
  el.textContent = text;
  if (!animate || !before) return;
  el.classList.remove("bump");
  void el.offsetWidth; // restart the CSS animation
  el.classList.add("bump");
}

export function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el;
}
