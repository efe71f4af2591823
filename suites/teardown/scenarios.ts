/**
 * The fault scenarios of TEAR-01..06 and TEAR-15 as data. Each check runs its own; TEAR-13 runs them all
 * again with a host probe around them, so the two never drift apart.
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

/** TEAR-04: plugin 10 hangs in every teardown hook. */
export const EVERY_TEARDOWN_HOOK_HANGS: FaultyTeardownSpec = {
  name: 'hangs',
  action: HANG,
  faultOn: TEARDOWN_EVENTS,
  steps: TEARDOWN_EVENTS,
};

/** TEAR-05: plugin 10 fails every teardown event; plugin 20 must still get each. */
export const LOWER_PLUGIN_REFUSES: FaultyTeardownSpec = {
  name: 'lower-refuses',
  action: REFUSE,
  faultOn: TEARDOWN_EVENTS,
  steps: TEARDOWN_EVENTS,
  witness: true,
};

/** TEAR-06: plugin 10 hangs in every teardown hook; plugin 20 must still get each. */
export const LOWER_PLUGIN_HANGS: FaultyTeardownSpec = {
  ...EVERY_TEARDOWN_HOOK_HANGS,
  name: 'lower-hangs',
  witness: true,
};

/** TEAR-06: plugin 10 crashes in every teardown hook; plugin 20 must still get each. */
export const LOWER_PLUGIN_CRASHES: FaultyTeardownSpec = {
  name: 'lower-crashes',
  action: CRASH,
  faultOn: TEARDOWN_EVENTS,
  steps: TEARDOWN_EVENTS,
  witness: true,
};

/** TEAR-15: plugin 10 fails every teardown event, nothing else is wrong. */
export const ONLY_A_PLUGIN_FAILS: FaultyTeardownSpec = {
  ...LOWER_PLUGIN_REFUSES,
  name: 'only-plugin-fails',
  witness: false,
};

/** What TEAR-13 repeats with the leak probe, by the check that owns the scenario. */
export const LEAK_PROBED_SCENARIOS: readonly (readonly [string, FaultyTeardownSpec])[] = [
  ['TEAR-01', STOP_POD_REFUSED],
  ['TEAR-02', REMOVE_POD_REFUSED],
  ['TEAR-03', CONTAINER_TEARDOWN_REFUSED],
  // TEAR-04's hangs are TEAR-06's with a witness added: one run covers both.
  ['TEAR-04/06 (hang)', LOWER_PLUGIN_HANGS],
  ['TEAR-05', LOWER_PLUGIN_REFUSES],
  ['TEAR-06 (crash)', LOWER_PLUGIN_CRASHES],
];
