/**
 * Decoding of the Plugin-service RPCs that carry a pod or container event, for both delivery paths:
 * StateChange (every NRI version) and the dedicated per-event RPCs (NRI v0.12+, and CreateContainer,
 * UpdateContainer, StopContainer, UpdatePodSandbox, ValidateContainerAdjustment before that).
 */
import { eventName } from './event-mask.js';
import { decodeProto, type WireContainer, type WirePod } from './messages.js';
import { toNriContainer, toNriPod } from './normalise.js';
import { NRI_EVENTS, type NriContainer, type NriEventName, type NriPod } from './types.js';

export interface DecodedEvent {
  event: NriEventName;
  /** The RPC method it arrived by. */
  via: string;
  pod: NriPod;
  container?: NriContainer;
}

/** Every Plugin method that carries an event: StateChange plus one dedicated RPC per event name. */
export const EVENT_METHODS: readonly string[] = ['StateChange', ...NRI_EVENTS];

interface WireEventRequest {
  event?: number;
  pod: WirePod | null;
  container: WireContainer | null;
}

/**
 * Decodes the request of an event method. Returns undefined for a StateChange whose event this plugin
 * does not know (a newer runtime's). Throws ERR_NRI_PROTOCOL for undecodable bytes.
 */
export function decodeEventCall(method: string, payload: Uint8Array): DecodedEvent | undefined {
  const isStateChange = method === 'StateChange';
  const req = decodeProto<WireEventRequest>(isStateChange ? 'StateChangeEvent' : `${method}Request`, payload);
  const event = isStateChange ? eventName(req.event ?? 0) : (method as NriEventName);
  if (!event) return undefined;
  return {
    event,
    via: method,
    pod: toNriPod(req.pod),
    ...(req.container ? { container: toNriContainer(req.container) } : {}),
  };
}
