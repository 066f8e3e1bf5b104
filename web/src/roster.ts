/**
 * The venue's roster (`venue/tables.json`, written by `rhuna-table venue`, served beside the
 * pages): every table of the venue with its name, heard from or not (docs/convention.md).
 */

/** `{"tables": [{"id", "name", …}]}` → id → name; throws when there is no tables list. */
export function readRoster(data: unknown): Map<string, string> {
  const tables = (data as { tables?: unknown } | null)?.tables;
  if (!Array.isArray(tables)) throw new Error("no tables list in it");
  const out = new Map<string, string>();
  for (const t of tables as { id?: unknown; name?: unknown }[])
    if (typeof t?.id === "string") out.set(t.id, typeof t.name === "string" ? t.name : t.id);
  return out;
}

export interface Roster {
  /** null until read (or when it could not be) */
  tables: Map<string, string> | null;
  /** why it could not be read, in words with the fix; null: fine */
  problem: string | null;
}

/** Fetch the roster at `url` (relative to the page); the returned object fills in when read. */
export function loadRoster(url: string | null): Roster {
  const roster: Roster = { tables: null, problem: null };
  if (!url) return roster;
  fetch(url, { cache: "no-store" })
    .then((r) => {
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      return r.json();
    })
    .then((data) => {
      roster.tables = readRoster(data);
    })
    .catch((e: unknown) => {
      roster.problem = `roster=${url} not read (${e instanceof Error ? e.message : String(e)}): give the venue's tables.json beside this page`;
    });
  return roster;
}
