/**
 * The NRI vocabulary shared by the plugin side, the runtime side and the harness. Event names are the
 * dedicated RPC names of NRI 0.12; older runtimes deliver most of them as StateChange, and the plugin
 * normalises both paths to these names.
 */

export const NRI_EVENTS = [
  'RunPodSandbox',
  'StopPodSandbox',
  'RemovePodSandbox',
  'CreateContainer',
  'PostCreateContainer',
  'StartContainer',
  'PostStartContainer',
  'UpdateContainer',
  'PostUpdateContainer',
  'StopContainer',
  'RemoveContainer',
  'UpdatePodSandbox',
  'PostUpdatePodSandbox',
  'ValidateContainerAdjustment',
] as const;
export type NriEventName = (typeof NRI_EVENTS)[number];

/** The fields of an NRI PodSandbox that cri-conform reads. Absent fields are empty. */
export interface NriPod {
  id: string;
  name: string;
  uid: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtimeHandler: string;
  pid: number;
  /** namespaces[type == "network"].path, or '' when the event carries none. */
  netnsPath: string;
  ips: string[];
}

export interface NriContainer {
  id: string;
  podSandboxId: string;
  name: string;
  /** NRI numbering: 0 unknown, 1 created, 2 paused, 3 running, 4 stopped. */
  state: number;
  labels: Record<string, string>;
  pid: number;
}

export interface NriEventRecord {
  /** Global across every plugin instance of the process (see PluginOptions.sequence). */
  seq: number;
  /** performance.now() when the request was decoded. */
  atMs: number;
  pluginName: string;
  pluginIndex: string;
  event: NriEventName;
  /** The RPC it arrived by: 'StateChange' on NRI < 0.12, the event name itself otherwise. */
  via: string;
  pod: NriPod;
  container?: NriContainer;
  /** The runtime's deadline for this request (ttrpc timeout_nano), in ms; undefined when none was sent. */
  timeoutMs?: number;
  /** Set when a fault acted on this event: 'error', 'delay', 'hang', 'crash'. */
  fault?: string;
}

export type FaultAction =
  | { kind: 'error'; message?: string }
  | { kind: 'delay'; ms: number }
  | { kind: 'hang' } // hold the reply until released or the connection ends
  | { kind: 'crash' }; // close the connection instead of replying

export interface EventMatch {
  event?: NriEventName;
  podId?: string;
  podName?: string;
  podUid?: string;
  containerId?: string;
  containerName?: string;
}

export interface FaultSpec {
  match: EventMatch & { event: NriEventName };
  action: FaultAction;
  /** How many matching events the fault acts on; default: every one. */
  times?: number;
}
