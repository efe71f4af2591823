/**
 * A small RunOutcome with one check of every verdict, for the reporter tests. Named *.test.helper.ts so
 * mocha does not load it as a test and packaging leaves it out.
 */

import type { HookLaneUse } from '../harness/check/lane-use.js';
import type { CheckResult, RunOutcome, TimelineEntry } from '../harness/check/result.js';

export const TIMELINE: TimelineEntry[] = [
  {
    kind: 'cri',
    seq: 1,
    atMs: 3.2,
    method: 'RunPodSandbox',
    ids: 'name=idem-01#0',
    deadlineMs: 2_000,
    latencyMs: 2_001.4,
    code: 'DEADLINE_EXCEEDED',
    message: 'context deadline exceeded',
  },
  {
    kind: 'nri',
    seq: 2,
    atMs: 15,
    plugin: '10-cri-conform',
    event: 'RunPodSandbox',
    podId: '0123456789abcdef0123',
    podName: 'idem-01',
    note: 'fault: hang',
  },
  { kind: 'note', seq: 3, atMs: 2_100, text: 'retrying like kubelet' },
];

export function result(over: Partial<CheckResult> & Pick<CheckResult, 'id' | 'verdict'>): CheckResult {
  return {
    suite: 'idempotency',
    title: 'A retried RunPodSandbox returns the same sandbox',
    level: 'MUST',
    tags: [],
    contract: 'cri-api v0.32.3 api.proto RunPodSandbox',
    durationMs: 1_234,
    observations: {},
    timeline: [],
    ...over,
  };
}

/** A hook lane that TEAR-14 and TEAR-08 took in turns, as a hooks plus teardown run on containerd 1.7 left it. */
export const HOOK_LANE: HookLaneUse = {
  turns: 100,
  takenMs: 19_234,
  spanMs: 19_262,
  byCheck: [
    { id: 'TEAR-14', turns: 40, takenMs: 9_949 },
    { id: 'TEAR-08', turns: 60, takenMs: 9_285 },
  ],
};

export function sampleOutcome(): RunOutcome {
  return {
    properties: {
      runId: 'r-1',
      toolVersion: '0.1.0',
      runtimeName: 'containerd',
      runtimeVersion: '1.7.24',
      criApiVersion: 'v1',
      nriVersion: '0.6.1',
      endpoint: 'unix:///run/containerd/containerd.sock',
      startedAt: '2026-01-02T03:04:05.000Z',
      flags: '--suite idempotency --level all',
    },
    durationMs: 65_432,
    results: [
      result({ id: 'IDEM-01', verdict: 'passed', timeline: TIMELINE.slice(0, 1) }),
      result({
        id: 'IDEM-02',
        verdict: 'failed',
        message: 'expected pod-2 to equal pod-1',
        timeline: TIMELINE,
      }),
      result({
        id: 'NAME-01',
        suite: 'names',
        verdict: 'error',
        message: 'ttrpc: bad frame',
        detail: 'Error: bad frame\n    at decode',
      }),
      result({ id: 'NAME-02', suite: 'names', verdict: 'skipped', message: 'needs NRI: pass --nri-socket' }),
      result({
        id: 'HOOK-01',
        suite: 'hooks',
        verdict: 'deviation',
        message: 'expected deviation: stop hook blocks https://github.com/containerd/containerd/issues/1',
      }),
      result({
        id: 'HOOK-02',
        suite: 'hooks',
        level: 'OBSERVE',
        verdict: 'observed',
        observations: { 'reservation.code': 'UNKNOWN' },
        trials: { run: 5, violated: 0, atOnce: 4 },
        floorMs: { sideBySide: 2_400, serial: 6_000 },
      }),
    ],
  };
}
