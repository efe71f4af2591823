/** Validation and defaults for NriPlugin options: one resolver, used before anything is dialed. */
import { NriProtocolError } from './errors.js';
import {
  NRI_EVENTS,
  type NriContainer,
  type NriEventName,
  type NriEventRecord,
  type NriPod,
} from './types.js';

export interface PluginOptions {
  socketPath: string;
  /** `[a-zA-Z0-9_.+-]+` (NRI v0.12 rejects anything else). */
  name: string;
  /** Exactly two digits; plugins are called in string order of their index. */
  index: string;
  /** Subscription; filtered to the events the runtime's NRI version knows. */
  events: readonly NriEventName[];
  /** Global sequence source shared by several plugins; default: one counter per process. */
  sequence?: () => number;
  /**
   * Events it refuses are answered OK at once, never recorded, never faulted. Gets the event's container
   * too, for container events: a runtime may relay one with an empty or unknown pod.
   */
  acceptsPod?: (pod: NriPod, container?: NriContainer) => boolean;
  onEvent?: (e: NriEventRecord) => void;
  /** A hang fault on `e` lasted `ms` and ended only because the connection closed (not released). */
  onHungUntilClosed?: (e: NriEventRecord, ms: number) => void;
  /** Bound on the whole start (register, Configure, Synchronize); default 5000. */
  registrationTimeoutMs?: number;
}

type Callbacks = 'acceptsPod' | 'onEvent' | 'onHungUntilClosed';
export type ResolvedPluginOptions = Required<Omit<PluginOptions, Callbacks>> & Pick<PluginOptions, Callbacks>;

export const DEFAULT_REGISTRATION_TIMEOUT_MS = 5000;
/** The plugin names NRI v0.12 accepts; it refuses a registration with any other. */
export const PLUGIN_NAME_PATTERN = /^[a-zA-Z0-9_.+-]+$/;
/** Two digits: the runtime calls plugins in string order of their index. */
export const PLUGIN_INDEX_PATTERN = /^\d{2}$/;

let processSeq = 0;
/** The default sequence: one counter for every plugin of this process. */
export function nextProcessSeq(): number {
  processSeq += 1;
  return processSeq;
}

export function resolvePluginOptions(o: PluginOptions): ResolvedPluginOptions {
  const bad = (why: string) => new NriProtocolError('ERR_NRI_INVALID_OPTIONS', `NRI plugin options: ${why}`);
  if (!PLUGIN_INDEX_PATTERN.test(o.index)) throw bad(`index "${o.index}" must be exactly two digits`);
  if (!PLUGIN_NAME_PATTERN.test(o.name))
    throw bad(`name "${o.name}" must match ${PLUGIN_NAME_PATTERN.source}`);
  if (!o.socketPath) throw bad('socketPath is empty');
  if (o.events.length === 0) throw bad('events is empty: subscribe to at least one event');
  const unknown = o.events.filter((e) => !(NRI_EVENTS as readonly string[]).includes(e));
  if (unknown.length > 0) throw bad(`unknown events ${unknown.join(', ')}`);
  const registrationTimeoutMs = o.registrationTimeoutMs ?? DEFAULT_REGISTRATION_TIMEOUT_MS;
  if (!(registrationTimeoutMs > 0)) throw bad('registrationTimeoutMs must be > 0');
  return { ...o, sequence: o.sequence ?? nextProcessSeq, registrationTimeoutMs };
}
