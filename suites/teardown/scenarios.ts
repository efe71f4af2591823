/**
 * The fault scenarios of TEAR-01..07 and TEAR-15 as data. Each runs once per run (recorded-teardown.ts):
 * the checks that share one read its record, and TEAR-13 reads what the host kept after each.
 */
import type { FaultAction } from '../../src/harness/face.js';
import { type FaultyTeardownSpec, TEARDOWN_EVENTS } from './faulty-teardown.js';

const REFUSE: FaultAction = { kind: 'error', message: 'cri-conform: this plugin refuses the event' };
const HANG: FaultAction = { kind: 'hang' };
const CRASH: FaultAction = { kind: 'crash' };

/** TEAR-01: plugin 10 fails StopPodSandbox. */
export const STOP_POD_REFUSED: FaultyTeardownSpec = {
  name: 'stop-refused',
  action: REFUSE,
  faultOn: ['StopPodSandbox'],
  steps: ['StopPodSandbox'],
  retryOnError: true,
};

/** TEAR-02: plugin 10 fails RemovePodSandbox. */
export const REMOVE_POD_REFUSED: FaultyTeardownSpec = {
  name: 'remove-refused',
  action: REFUSE,
  faultOn: ['RemovePodSandbox'],
  steps: ['StopPodSandbox', 'RemovePodSandbox'],
  retryOnError: true,
};

/** TEAR-03: plugin 10 fails StopContainer and RemoveContainer. */
export const CONTAINER_TEARDOWN_REFUSED: FaultyTeardownSpec = {
  name: 'ctr-refused',
  action: REFUSE,
  faultOn: ['StopContainer', 'RemoveContainer'],
  steps: ['StopContainer', 'RemoveContainer'],
  retryOnError: true,
};

/** TEAR-05 and TEAR-15: plugin 10 fails every teardown event; plugin 20 must still get each (TEAR-05). */
export const LOWER_PLUGIN_REFUSES: FaultyTeardownSpec = {
  name: 'lower-refuses',
  action: REFUSE,
  faultOn: TEARDOWN_EVENTS,
  steps: TEARDOWN_EVENTS,
  witness: true,
};

/**
 * TEAR-04, TEAR-06 and TEAR-07: plugin 10 hangs in every teardown hook; each call returns within the bound
 * and is OK or cleared by its retry, leaving its object stopped or gone (TEAR-04), plugin 20 still gets
 * each event (TEAR-06), and plugin 10 registers again after each (TEAR-07). A witness after the hanging
 * plugin leaves TEAR-04's bound as it was: the hang comes first.
 */
export const LOWER_PLUGIN_HANGS: FaultyTeardownSpec = {
  name: 'lower-hangs',
  action: HANG,
  faultOn: TEARDOWN_EVENTS,
  steps: TEARDOWN_EVENTS,
  witness: true,
  retryOnError: true,
};

/** TEAR-06 and TEAR-07: plugin 10 crashes in every teardown hook; plugin 20 must still get each. */
export const LOWER_PLUGIN_CRASHES: FaultyTeardownSpec = {
  name: 'lower-crashes',
  action: CRASH,
  faultOn: TEARDOWN_EVENTS,
  steps: TEARDOWN_EVENTS,
  witness: true,
  retryOnError: true,
};

/** The scenarios whose host leftovers TEAR-13 judges, by the check that owns each. */
export const LEAK_PROBED_SCENARIOS: readonly (readonly [string, FaultyTeardownSpec])[] = [
  ['TEAR-01', STOP_POD_REFUSED],
  ['TEAR-02', REMOVE_POD_REFUSED],
  ['TEAR-03', CONTAINER_TEARDOWN_REFUSED],
  ['TEAR-04/06 (hang)', LOWER_PLUGIN_HANGS],
  ['TEAR-05', LOWER_PLUGIN_REFUSES],
  ['TEAR-06 (crash)', LOWER_PLUGIN_CRASHES],
];
