/**
 * A small TOML editor for the configs `containerd config dump` prints: tables of `key = value` lines, no
 * comments, values on one line or arrays over several. Values stay as written (raw text); only the ones
 * the private instance changes are read and replaced. Enough for a machine-written dump, not a general
 * TOML parser: dotted keys and inline-table edits are not supported.
 */

export interface TomlTable {
  /** Header key segments, decoded; [] for the root table. */
  path: string[];
  /** `[[...]]`: one element of an array of tables. */
  array: boolean;
  entries: Array<{ key: string; raw: string }>;
}

export class TomlDoc {
  private constructor(readonly tables: TomlTable[]) {}

  static parse(text: string): TomlDoc {
    const root: TomlTable = { path: [], array: false, entries: [] };
    const tables = [root];
    let current = root;
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = (lines[i] ?? '').trim();
      if (line === '' || line.startsWith('#')) continue;
      const header = /^(\[\[?)(.*?)\]\]?$/.exec(line);
      if (header && !line.includes('=')) {
        current = { path: splitKey(header[2] ?? ''), array: header[1] === '[[', entries: [] };
        tables.push(current);
        continue;
      }
      const eq = keyEnd(line);
      if (eq < 0) throw new Error(`TOML line ${i + 1}: expected "key = value": ${line}`);
      let raw = line.slice(eq + 1).trim();
      while (!balanced(raw) && i + 1 < lines.length) raw += `\n${lines[++i] ?? ''}`;
      current.entries.push({ key: splitKey(line.slice(0, eq))[0] ?? '', raw });
    }
    return new TomlDoc(tables);
  }

  /** The first (non-array) table with this path. */
  table(path: readonly string[]): TomlTable | undefined {
    return this.tables.find((t) => !t.array && samePath(t.path, path));
  }

  /** Paths of the direct sub-tables of `path` (such as each runtime under `...runtimes`). */
  childNames(path: readonly string[]): string[] {
    const names = this.tables
      .filter((t) => !t.array && t.path.length === path.length + 1 && samePath(t.path.slice(0, -1), path))
      .map((t) => t.path[path.length] ?? '');
    return [...new Set(names)];
  }

  raw(path: readonly string[], key: string): string | undefined {
    return this.table(path)?.entries.find((e) => e.key === key)?.raw;
  }

  string(path: readonly string[], key: string): string | undefined {
    const raw = this.raw(path, key);
    return raw === undefined ? undefined : decodeString(raw);
  }

  /** Sets a key's raw value, creating the table at the end when it is missing; returns the old raw value. */
  set(path: readonly string[], key: string, raw: string): string | undefined {
    let table = this.table(path);
    if (!table) {
      table = { path: [...path], array: false, entries: [] };
      this.tables.push(table);
    }
    const entry = table.entries.find((e) => e.key === key);
    const old = entry?.raw;
    if (entry) entry.raw = raw;
    else table.entries.push({ key, raw });
    return old;
  }

  delete(path: readonly string[], key: string): string | undefined {
    const table = this.table(path);
    const index = table?.entries.findIndex((e) => e.key === key) ?? -1;
    if (!table || index < 0) return undefined;
    return table.entries.splice(index, 1)[0]?.raw;
  }

  /** Removes a table and every table below it. */
  deleteTree(path: readonly string[]): void {
    for (let i = this.tables.length - 1; i > 0; i--) {
      const t = this.tables[i];
      if (t && samePath(t.path.slice(0, path.length), path)) this.tables.splice(i, 1);
    }
  }

  toString(): string {
    return this.tables
      .map((t) => {
        const body = t.entries.map((e) => `${formatKey(e.key)} = ${e.raw}\n`).join('');
        if (t.path.length === 0) return body;
        const name = t.path.map(formatKey).join('.');
        return `\n${t.array ? `[[${name}]]` : `[${name}]`}\n${body}`;
      })
      .join('');
  }
}

/** A TOML string value for any text (a basic string; JSON's escapes are TOML's). */
export function tomlString(value: string): string {
  return JSON.stringify(value);
}

export function tomlStringArray(values: readonly string[]): string {
  return `[${values.map(tomlString).join(', ')}]`;
}

/** The text of a TOML string value: '...' literal or "..." basic; undefined for anything else. */
export function decodeString(raw: string): string | undefined {
  const text = raw.trim();
  if (text.length >= 2 && text.startsWith("'") && text.endsWith("'")) return text.slice(1, -1);
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The strings of a one-dimensional TOML array of strings. */
export function decodeStringArray(raw: string): string[] {
  const out: string[] = [];
  for (const m of raw.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"/g)) {
    out.push(m[1] ?? (JSON.parse(`"${m[2] ?? ''}"`) as string));
  }
  return out;
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

function formatKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

/** `a."b.c".'d'` -> ['a', 'b.c', 'd']. */
function splitKey(text: string): string[] {
  const parts: string[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(?:\.|$)/y;
  let m = re.exec(text);
  while (m !== null && m[0] !== '') {
    parts.push(m[1] !== undefined ? (JSON.parse(`"${m[1]}"`) as string) : (m[2] ?? m[3] ?? ''));
    m = re.exec(text);
  }
  return parts;
}

/** Index of the `=` that ends the key (outside the key's quotes), or -1. */
function keyEnd(line: string): number {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '=') return i;
  }
  return -1;
}

/** Whether every [ and { outside strings is closed. */
function balanced(raw: string): boolean {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
  }
  return depth <= 0;
}
