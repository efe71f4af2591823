/**
 * NRI event enum values and the subscription mask (bit `value - 1` per event), as carried in
 * ConfigureResponse.events.
 */
import type { NriEventName } from './types.js';

/** The NRI `Event` enum value of each event name. */
export const EVENT_VALUES: Readonly<Record<NriEventName, number>> = {
  RunPodSandbox: 1,
  StopPodSandbox: 2,
  RemovePodSandbox: 3,
  CreateContainer: 4,
  PostCreateContainer: 5,
  StartContainer: 6,
  PostStartContainer: 7,
  UpdateContainer: 8,
  PostUpdateContainer: 9,
  StopContainer: 10,
  RemoveContainer: 11,
  UpdatePodSandbox: 12,
  PostUpdatePodSandbox: 13,
  ValidateContainerAdjustment: 14,
};

/** Events 1-11: what every NRI version knows (v0.6-v0.9 reject any other bit and close the plugin). */
export const EVENTS_MASK_V0_6 = 0x7ff;
/** Events 1-14: NRI v0.10.0 and later. */
export const EVENTS_MASK_V0_10 = 0x3fff;

const BY_VALUE = new Map<number, NriEventName>(
  Object.entries(EVENT_VALUES).map(([name, value]) => [value, name as NriEventName]),
);

/** The event name of an enum value, or undefined for UNKNOWN, LAST and values we do not know. */
export function eventName(value: number): NriEventName | undefined {
  return BY_VALUE.get(value);
}

export function eventBit(name: NriEventName): number {
  return 1 << (EVENT_VALUES[name] - 1);
}

export function eventsMask(names: readonly NriEventName[]): number {
  return names.reduce((mask, n) => mask | eventBit(n), 0);
}

/** The names whose bits are set in `mask`, in enum order. */
export function eventsInMask(mask: number): NriEventName[] {
  return [...BY_VALUE.entries()].filter(([value]) => (mask & (1 << (value - 1))) !== 0).map(([, n]) => n);
}

export function isPodEvent(name: NriEventName): boolean {
  const v = EVENT_VALUES[name];
  return v <= 3 || v === 12 || v === 13;
}
