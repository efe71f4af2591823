/**
 * Edits of a node config (a TomlDoc) that record themselves: every setting the copy holds differently is a
 * change with the node's value, the copy's, and why. A dropped section is recorded by the names of its
 * keys only, never their values: a registry section holds passwords.
 */
import { decodeString, decodeStringArray, type TomlDoc } from './toml-doc.js';

/** One setting the private config holds differently from the node's, and why. */
export interface ChangedSetting {
  key: string;
  from: string | null;
  to: string | null;
  why: string;
}

/** The private instance cannot share nothing with the node with this setting: it stops before starting. */
export class UnsafeSetting extends Error {
  readonly code = 'ERR_UNSAFE_SETTING';
  override readonly name = 'UnsafeSetting';
}

export class ConfigEdit {
  readonly changes: ChangedSetting[] = [];

  constructor(readonly doc: TomlDoc) {}

  set(path: readonly string[], key: string, raw: string, why: string): void {
    const old = this.doc.set(path, key, raw);
    if (old === undefined || !sameValue(old, raw))
      this.changes.push({ key: describeKey(path, key), from: old ?? null, to: raw, why });
  }

  /** Only where the node sets it to something (an empty value means "none" already). */
  setIfSet(path: readonly string[], key: string, raw: string, why: string): void {
    const old = this.doc.raw(path, key);
    if (old !== undefined && !isEmpty(old)) this.set(path, key, raw, why);
  }

  /** Removes a table and all below it; recorded when it named anything (a non-empty string or list). */
  dropTree(path: readonly string[], why: string): void {
    const held = keysBelow(this.doc, path);
    this.doc.deleteTree(path);
    if (held.length > 0)
      this.changes.push({
        key: describeKey(path.slice(0, -1), path.at(-1) ?? ''),
        from: held.join(', '),
        to: null,
        why,
      });
  }

  note(key: string, from: string | null, to: string | null, why: string): void {
    this.changes.push({ key, from, to, why });
  }
}

/** `name` and `sub.name` of every non-empty key in the table at `path` and below, values left out. */
export function keysBelow(doc: TomlDoc, path: readonly string[]): string[] {
  return doc.tables
    .filter((t) => t.path.length >= path.length && path.every((s, i) => t.path[i] === s))
    .flatMap((t) =>
      t.entries
        .filter((e) => namesSomething(e.raw))
        .map((e) => describeKey(t.path.slice(path.length), e.key)),
    );
}

export function describeKey(path: readonly string[], key: string): string {
  return [...path, key].map((s) => (/^[A-Za-z0-9_-]+$/.test(s) ? s : JSON.stringify(s))).join('.');
}

/** A string or list with something in it; flags and numbers of a section name nothing. */
function namesSomething(raw: string): boolean {
  const t = raw.trim();
  return /^["'[{]/.test(t) && !isEmpty(t);
}

function isEmpty(raw: string): boolean {
  const t = raw.trim();
  return t === '""' || t === "''" || t === '[]' || t === '{}';
}

/** '2s' and "2s" are one value: dumps of 2.x write literal strings, this config basic ones. */
function sameValue(a: string, b: string): boolean {
  const normal = (raw: string) =>
    decodeString(raw) ?? (raw.trim().startsWith('[') ? JSON.stringify(decodeStringArray(raw)) : raw.trim());
  return normal(a) === normal(b);
}
