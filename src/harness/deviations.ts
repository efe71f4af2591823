/**
 * Expected deviations: known, upstream-tracked differences of a runtime from a contract. A listed failure
 * is reported as skipped with its reason and link; a listed check that passes is flagged, so stale entries
 * get noticed. Checks themselves are never loosened.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { EnvironmentError } from './errors.js';
import type { CheckResult } from './result.js';

export interface Deviation {
  id: string;
  /** Regular expressions on the runtime's Version reply; absent = any. */
  runtime?: RegExp;
  version?: RegExp;
  reason: string;
  link: string;
}

export function loadDeviations(path: string): Deviation[] {
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new EnvironmentError(`cannot read --expected-deviations ${path}: ${(e as Error).message}`);
  }
  const entries = (doc as { deviations?: unknown })?.deviations ?? doc;
  if (!Array.isArray(entries)) {
    throw new EnvironmentError(
      `--expected-deviations ${path}: expected a list of {id, runtime, version, reason, link}`,
    );
  }
  return entries.map((raw, i) => toDeviation(raw, `${path} entry ${i + 1}`));
}

function toDeviation(raw: unknown, where: string): Deviation {
  const r = raw as Record<string, unknown>;
  const text = (k: string) => (typeof r[k] === 'string' ? (r[k] as string) : undefined);
  const id = text('id');
  const reason = text('reason');
  const link = text('link');
  if (!id || !reason || !link?.startsWith('http')) {
    throw new EnvironmentError(`${where}: needs id, reason and an http(s) link to the upstream issue`);
  }
  const runtime = text('runtime');
  const version = text('version');
  return {
    id,
    reason,
    link,
    ...(runtime ? { runtime: new RegExp(runtime) } : {}),
    ...(version ? { version: new RegExp(version) } : {}),
  };
}

export function applyDeviations(
  result: CheckResult,
  deviations: readonly Deviation[],
  runtime: { name: string; version: string },
): CheckResult {
  const d = deviations.find(
    (d) =>
      d.id === result.id &&
      (!d.runtime || d.runtime.test(runtime.name)) &&
      (!d.version || d.version.test(runtime.version)),
  );
  if (!d) return result;
  if (result.verdict === 'failed') {
    return {
      ...result,
      verdict: 'deviation',
      message: `expected deviation: ${d.reason} ${d.link}`,
      detail: result.message,
    };
  }
  if (result.verdict === 'passed') {
    return {
      ...result,
      observations: {
        ...result.observations,
        deviation: `listed as expected deviation but passed: ${d.link}`,
      },
    };
  }
  return result;
}
