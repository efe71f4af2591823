/**
 * Replays expected-deviation entries against the violations checks found on a real runtime, each in its
 * own words (CheckResult.violations, what entries are matched against). An entry whose check's message
 * changed, on any one version it covers, matches nothing there and hides the known issue's link from every
 * run on that version; an entry whose pattern also fits another check's violation would give a new bug a
 * known issue's name. Both fail the build (deviation-replay.test.ts). Two samples are replayed: the one
 * committed in fixtures/deviation-replay (refreshed when asked, README: "A known deviation ends nothing"),
 * and the one the real-containerd e2e test writes to a scratch file on every run (scratchSamplePath), so
 * that a change of a check's wording fails the very run that makes it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CheckResult } from '../check/result.js';
import type { Deviation } from './deviation-file.js';
import { violationTexts } from './deviations.js';

/** The violations of one run, by check, each in its own words. */
export interface RecordedRun {
  runtime: string;
  version: string;
  recordedAt: string;
  messages: Record<string, string[]>;
}

export interface ReplaySample {
  about: string;
  runs: RecordedRun[];
}

/** Where the sample lives: fixtures/deviation-replay/<runtime>.json. */
export function samplePath(root: string, runtime: string): string {
  return join(root, 'fixtures', 'deviation-replay', `${runtime.toLowerCase()}.json`);
}

/**
 * Where the e2e test writes the sample of the run it just made, for deviation-replay.test.ts to replay in
 * the same `npm test` (whose TMPDIR is one scratch folder, removed when it ends).
 */
export function scratchSamplePath(runtime: string, version: string): string {
  return join(tmpdir(), 'cc-deviation-replay', `${runtime.toLowerCase()}-${minor(version)}.json`);
}

const ABOUT =
  'Violations checks found on real runtimes, each in its own words (what expected-deviation entries match), one record per minor version, refreshed by the real-containerd e2e test when CRI_CONFORM_RECORD_REPLAY_SAMPLE=1 (a check that found none keeps its earlier ones). deviation-replay.test.ts replays the bundled deviations against them.';

export function readSample(path: string): ReplaySample {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as ReplaySample;
  } catch {
    return { about: ABOUT, runs: [] };
  }
}

/** "2.1" of "2.1.9": one record per minor version, so a patch release replaces the one before it. */
function minor(version: string): string {
  return /^v?(\d+\.\d+)/.exec(version)?.[1] ?? version;
}

/**
 * The sample with this run's violations in it: every check that found any here gets its messages
 * replaced, and one that found none keeps what it found before (a race check does not fail every run).
 */
export function recordRun(
  sample: ReplaySample,
  run: { runtime: string; version: string; at: string },
  results: readonly Pick<CheckResult, 'id' | 'verdict' | 'message' | 'detail' | 'violations'>[],
): ReplaySample {
  const key = (r: { runtime: string; version: string }) => `${r.runtime.toLowerCase()} ${minor(r.version)}`;
  const earlier = sample.runs.find((r) => key(r) === key(run));
  const messages: Record<string, string[]> = { ...(earlier?.messages ?? {}) };
  const fresh = new Map<string, string[]>();
  for (const r of results) {
    const texts = violationTexts(r);
    if (texts.length > 0) fresh.set(r.id, [...(fresh.get(r.id) ?? []), ...texts]);
  }
  for (const [id, texts] of fresh) messages[id] = texts;
  const sorted = Object.fromEntries(Object.entries(messages).sort(([a], [b]) => a.localeCompare(b)));
  const recorded: RecordedRun = {
    runtime: run.runtime,
    version: run.version,
    recordedAt: run.at,
    messages: sorted,
  };
  const others = sample.runs.filter((r) => key(r) !== key(run));
  return { about: ABOUT, runs: [...others, recorded].sort((a, b) => key(a).localeCompare(key(b))) };
}

export function writeSample(path: string, sample: ReplaySample): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(sample, null, 2)}\n`);
}

/**
 * What is wrong with the entries against the sample, one line each: an entry no recorded failure of its
 * check on its runtime and versions can replay, one that matches none of its check's messages on a version
 * where the check failed (dead there: one line per such version, since a message that changed form on one
 * version hides the known issue there however well the entry fits the others), and one that matches
 * another check's message (over-broad). `fresh`: the sample is one run (the e2e's scratch sample), in
 * which a race check may not have failed at all: only a check that did fail there, and matched none of its
 * entries, is drift.
 */
export function replayDeviations(
  entries: readonly Deviation[],
  sample: ReplaySample,
  opts: { fresh?: boolean } = {},
): string[] {
  const problems: string[] = [];
  for (const d of entries) {
    const runs = sample.runs.filter((r) => r.runtime.toLowerCase() === d.runtime.toLowerCase());
    // A version whose recorded runs never saw the check fail says nothing about the entry's pattern there:
    // race checks do not fail in every run.
    const concerned = runs.filter((r) => d.versions.test(r.version) && (r.messages[d.id] ?? []).length > 0);
    const name = `${d.id} (${d.where}, ${d.versions.text})`;
    if (concerned.length === 0) {
      if (!opts.fresh)
        problems.push(
          `${name}: no recorded failure of ${d.id} on ${d.runtime} in its versions to replay it against`,
        );
      continue;
    }
    for (const r of concerned) {
      const own = r.messages[d.id] ?? [];
      if (
        !own.some((m) => d.message.test(m)) &&
        !(opts.fresh && explainedByOthers(d, entries, r.version, own)) &&
        !(opts.fresh && d.race && !explainedByAny(d, entries, r.version, own))
      ) {
        problems.push(
          `${name}: dead on ${d.runtime} ${r.version}: /${d.message.source}/ matches none of the ${own.length} ${d.id} messages recorded there (the first: ${own[0]?.slice(0, 2_000)})`,
        );
      }
    }
    for (const r of runs) {
      for (const [id, texts] of Object.entries(r.messages)) {
        const hit = id === d.id ? undefined : texts.find((m) => d.message.test(m));
        if (hit !== undefined) {
          problems.push(
            `${name}: over-broad: also matches ${id}'s message on ${r.version}: ${hit.slice(0, 200)}`,
          );
        }
      }
    }
  }
  return problems;
}

/**
 * Whether the check's other entries for this version match every one of its messages. One run shows the
 * races that happened to show: where a check has an entry per race, the run's failure is the other
 * entry's, and this one did not come up, which says nothing about its pattern.
 */
function explainedByOthers(
  d: Deviation,
  entries: readonly Deviation[],
  version: string,
  messages: readonly string[],
): boolean {
  const others = entries.filter(
    (e) =>
      e !== d &&
      e.id === d.id &&
      e.runtime.toLowerCase() === d.runtime.toLowerCase() &&
      e.versions.test(version),
  );
  return messages.every((m) => others.some((e) => e.message.test(m)));
}

/**
 * Whether any entry of the check for this version matches one of its messages. A race entry (`race:
 * true`) whose check failed in one run through a bug no entry names was not drifting: that run's first
 * violation was another bug's (IDEM-14 on containerd: a leftover cgroup of the abandoned attempt, not the
 * shim the entry names), and the run shows it as an unexplained FAIL.
 */
function explainedByAny(
  d: Deviation,
  entries: readonly Deviation[],
  version: string,
  messages: readonly string[],
): boolean {
  const ofCheck = entries.filter(
    (e) => e.id === d.id && e.runtime.toLowerCase() === d.runtime.toLowerCase() && e.versions.test(version),
  );
  return messages.some((m) => ofCheck.some((e) => e.message.test(m)));
}
