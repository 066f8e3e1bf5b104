/** Tiny DOM helpers: build elements, and keep keyed children so new ones can animate in. */

type Child = Node | string | number | null | undefined | false;

export function h(
  tag: string,
  attrs: Record<string, string | number | boolean | null | undefined> = {},
  ...children: Child[]
): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "object" ? c : String(c));
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

/** Set text; when it changes (and `animate`), replay the `bump` animation. */
export function setText(el: HTMLElement, text: string, animate: boolean): void {
  if (el.textContent === text) return;
  el.textContent = text;
  if (!animate) return;
  el.classList.remove("bump");
  void el.offsetWidth; // restart the CSS animation
  el.classList.add("bump");
}

export function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el;
}
