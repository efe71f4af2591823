/**
 * The expected-deviations file: a YAML list of known runtime differences, each narrow enough that a new
 * bug in the same check is never mistaken for it. An entry names the check, the runtime, a range of its
 * versions and a regular expression that the failure message must match, plus the tracking issue.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { findPackageRoot } from '../nri/package-root.js';
import { EnvironmentError } from './errors.js';
import { parseVersionRange, type VersionRange } from './version-range.js';

export interface Deviation {
  id: string;
  /** The runtime's name as its Version reply gives it (`containerd`, `cri-o`), compared without case. */
  runtime: string;
  versions: VersionRange;
  /** Searched for in the failure message; `.` also matches a line break. */
  message: RegExp;
  reason: string;
  /** The issue that tracks the behaviour, then optionally a proposal to change the contract. */
  links: string[];
  /** "<file> entry <n>", for warnings. */
  where: string;
}

/** The deviations cri-conform ships, for naming known issues next to failures (fixtures/expected-deviations). */
export const BUNDLED_DEVIATIONS_DIR = join('fixtures', 'expected-deviations');

const REQUIRED = ['id', 'runtime', 'versions', 'message', 'reason', 'link'] as const;
const KEYS = [...REQUIRED, 'proposal'] as const;
const FORMAT = 'id, runtime, versions, message, reason, link and optionally proposal';

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
  const missing = REQUIRED.filter((k) => text(k) === undefined);
  if (missing.length > 0) {
    throw new EnvironmentError(`${where}: missing ${missing.join(', ')}; every entry needs ${FORMAT}`);
  }
  const field = (k: (typeof REQUIRED)[number]) => text(k) ?? ''; // present: checked just above
  if (!/^[A-Z]{3,5}-\d{2}$/.test(field('id'))) {
    throw new EnvironmentError(`${where}: id ${field('id')} is not a check ID such as IDEM-05`);
  }
  const link = field('link');
  const proposal = text('proposal');
  const links = proposal ? [link, proposal] : [link];
  const notHttp = links.find((l) => !/^https?:\/\//.test(l));
  if (notHttp) throw new EnvironmentError(`${where}: ${notHttp} is not an http(s) link`);
  return {
    id: field('id'),
    runtime: field('runtime'),
    versions: compile(where, () => parseVersionRange(field('versions'))),
    message: compile(where, () => new RegExp(field('message'), 's')),
    reason: field('reason'),
    links,
    where,
  };
}

function compile<T>(where: string, make: () => T): T {
  try {
    return make();
  } catch (e) {
    throw new EnvironmentError(`${where}: ${(e as Error).message}`);
  }
}
