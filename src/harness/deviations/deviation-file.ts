/**
 * The expected-deviations file: a YAML list of known runtime differences, each narrow enough that a new
 * bug in the same check is never mistaken for it. An entry names the check, the runtime, a range of its
 * versions and a regular expression that the failure message must match, plus the tracking issue, or, for
 * a bug nobody reported upstream yet, the bug report drafted for it (docs/upstream/, optionally with a
 * related issue).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { findPackageRoot } from '../../nri/package-root.js';
import { EnvironmentError } from '../core/errors.js';
import { parseVersionRange, type VersionRange } from '../core/version-range.js';

export interface Deviation {
  id: string;
  /** The runtime's name as its Version reply gives it (`containerd`, `cri-o`), compared without case. */
  runtime: string;
  versions: VersionRange;
  /** Searched for in the failure message; `.` also matches a line break. */
  message: RegExp;
  reason: string;
  /**
   * The issue that tracks the behaviour, then optionally a proposal to change the contract; for an entry
   * with a draft, the related issue if any (it does not track this bug).
   */
  links: string[];
  /** A bug no upstream issue tracks: its report, drafted for filing, relative to the package root. */
  draft?: string;
  /**
   * The bug shows in some trials only (`race: true`): one run whose check failed through a bug no entry
   * names says nothing about this entry's pattern (deviation-replay.ts).
   */
  race?: boolean;
  /** "<file> entry <n>", for warnings. */
  where: string;
}

/** The deviations cri-conform ships, for naming known issues next to failures (fixtures/expected-deviations). */
export const BUNDLED_DEVIATIONS_DIR = join('fixtures', 'expected-deviations');

const REQUIRED = ['id', 'runtime', 'versions', 'message', 'reason'] as const;
const TEXT_KEYS = [...REQUIRED, 'link', 'proposal', 'draft', 'related'] as const;
const KEYS = [...TEXT_KEYS, 'race'] as const;
const FORMAT =
  'id, runtime, versions, message, reason, and link (optionally proposal) or, for a bug not reported upstream, draft (optionally related); race: true for a bug only some trials show';
/** Where drafted bug reports live in the package: docs/upstream/<runtime>-<check>.md. */
const DRAFT_PATH = /^docs\/upstream\/[a-z0-9.-]+-[A-Z]{3,5}-\d{2}\.md$/;

export function loadDeviations(path: string): Deviation[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new EnvironmentError(`cannot read --expected-deviations ${path}: ${(e as Error).message}`);
  }
  return parseDeviations(text, path);
}

/** Every file in the package's fixtures/expected-deviations; none when the folder is absent. */
export function loadBundledDeviations(root: string = findPackageRoot()): Deviation[] {
  const dir = join(root, BUNDLED_DEVIATIONS_DIR);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.yaml'));
  } catch {
    return [];
  }
  return names.sort().flatMap((n) => loadDeviations(join(dir, n)));
}

export function parseDeviations(text: string, path: string): Deviation[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    const first = (e as Error).message.split('\n')[0] ?? '';
    throw new EnvironmentError(`${path} is not valid YAML (${first.replace(/:$/, '')}).`);
  }
  const entries = (doc as { deviations?: unknown } | null)?.deviations ?? doc ?? [];
  if (!Array.isArray(entries)) {
    throw new EnvironmentError(`${path}: expected a list of entries with ${FORMAT}`);
  }
  return entries.map((raw, i) => toDeviation(raw, `${path} entry ${i + 1}`));
}

function toDeviation(raw: unknown, where: string): Deviation {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new EnvironmentError(`${where}: expected a mapping with ${FORMAT}`);
  }
  const r = raw as Record<string, unknown>;
  const unknown = Object.keys(r).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (unknown.includes('version')) {
    throw new EnvironmentError(`${where}: "version" is now "versions", a range such as ">=1.7.0 <1.8.0"`);
  }
  if (unknown.length > 0) throw new EnvironmentError(`${where}: unknown key ${unknown[0]}; keys: ${FORMAT}`);
  const text = (k: (typeof KEYS)[number]) => {
    const v = r[k];
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  requireTextValues(r, where);
  const missing = REQUIRED.filter((k) => text(k) === undefined);
  if (missing.length > 0) {
    throw new EnvironmentError(`${where}: missing ${missing.join(', ')}; every entry needs ${FORMAT}`);
  }
  const field = (k: (typeof REQUIRED)[number]) => text(k) ?? ''; // present: checked just above
  if (!/^[A-Z]{3,5}-\d{2}$/.test(field('id'))) {
    throw new EnvironmentError(`${where}: id ${field('id')} is not a check ID such as IDEM-05`);
  }
  if (r.race !== undefined && r.race !== true)
    throw new EnvironmentError(`${where}: race is true or left out, not ${JSON.stringify(r.race)}`);
  const { links, draft } = trackedBy(where, text);
  const notHttp = links.find((l) => !/^https?:\/\//.test(l));
  if (notHttp) throw new EnvironmentError(`${where}: ${notHttp} is not an http(s) link`);
  return {
    id: field('id'),
    runtime: field('runtime'),
    versions: compile(where, () => parseVersionRange(field('versions'))),
    message: compile(where, () => new RegExp(field('message'), 's')),
    reason: field('reason'),
    links,
    ...(draft ? { draft } : {}),
    ...(r.race === true ? { race: true } : {}),
    where,
  };
}

/** A key given a list, a mapping, a number or true is there, just not usable: saying "missing" would mislead. */
function requireTextValues(r: Record<string, unknown>, where: string): void {
  for (const k of TEXT_KEYS) {
    const v = r[k];
    if (v === undefined || v === null || typeof v === 'string') continue;
    // YAML reads 5, 1.7 and true as a number or a boolean; quotes keep them text.
    const fix = typeof v === 'object' ? '' : ` (quote it: "${String(v)}")`;
    throw new EnvironmentError(`${where}: key "${k}" must be a string, not ${JSON.stringify(v)}${fix}`);
  }
}

/**
 * What tracks the entry's bug: an upstream issue (`link`, and a `proposal` to change the contract), or,
 * where none exists, the report drafted for it (`draft`, and an issue it is `related` to). One or the
 * other: a draft beside a tracking link would say the bug is both reported and not.
 */
function trackedBy(
  where: string,
  text: (k: (typeof KEYS)[number]) => string | undefined,
): { links: string[]; draft?: string } {
  const [link, proposal, draft, related] = (['link', 'proposal', 'draft', 'related'] as const).map(text);
  if (draft === undefined) {
    if (link === undefined)
      throw new EnvironmentError(`${where}: missing link or draft; every entry needs ${FORMAT}`);
    if (related !== undefined)
      throw new EnvironmentError(`${where}: related goes with draft; a tracked entry has link and proposal`);
    return { links: proposal ? [link, proposal] : [link] };
  }
  if (link !== undefined || proposal !== undefined) {
    throw new EnvironmentError(
      `${where}: draft is for a bug no upstream issue tracks; with a link, drop the draft (or name the link as related)`,
    );
  }
  if (!DRAFT_PATH.test(draft)) {
    throw new EnvironmentError(
      `${where}: draft ${draft} is not a path such as docs/upstream/containerd-TEAR-16.md`,
    );
  }
  return { links: related ? [related] : [], draft };
}

function compile<T>(where: string, make: () => T): T {
  try {
    return make();
  } catch (e) {
    throw new EnvironmentError(`${where}: ${(e as Error).message}`);
  }
}
