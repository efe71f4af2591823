/**
 * Connecting to the runtime and finding out what the node offers: the shared setup of `run` and `doctor`.
 * Anything that makes a run untrustworthy is an EnvironmentError (exit 2) with what to fix.
 */
import { CriClient } from '../../cri/client.js';
import { CriConnectError } from '../../cri/errors.js';
import type { VersionResponse } from '../../cri/types.js';
import { NriPlugin } from '../../nri/plugin.js';
import type { NriTimeouts } from '../check/result.js';
import { EnvironmentError, errorMessage } from '../core/errors.js';
import type { RunConfig } from '../core/settings.js';
import { NodeView } from '../host/node-view.js';
import { nriSocketProblem } from '../host/nri-socket-file.js';
import { NodeHostProbe } from './host-probe.js';

/** The shortest wait for the first Version call: a runtime that is busy starting up takes seconds to answer. */
const FIRST_VERSION_MIN_DEADLINE_MS = 5_000;
const PROBE_PLUGIN = { name: 'cri-conform-probe', index: '99' };

/**
 * How long the first Version call waits. A --call-timeout longer than the minimum is what the user expects
 * of every call, the first included; a shorter one would fail a slow runtime before it could prove it is there.
 */
export function firstVersionDeadlineMs(callTimeoutMs: number): number {
  return Math.max(FIRST_VERSION_MIN_DEADLINE_MS, callTimeoutMs);
}

export async function connectRuntime(
  config: Pick<RunConfig, 'runtimeEndpoint' | 'imageEndpoint' | 'callTimeoutMs'>,
) {
  try {
    return await CriClient.connect({
      runtimeEndpoint: config.runtimeEndpoint,
      imageEndpoint: config.imageEndpoint,
      connectTimeoutMs: firstVersionDeadlineMs(config.callTimeoutMs),
      defaultDeadlineMs: config.callTimeoutMs,
    });
  } catch (e) {
    if (e instanceof CriConnectError) throw new EnvironmentError(e.message);
    throw e;
  }
}

export interface NriFinding {
  socketPath?: string;
  unavailable?: string;
  version?: string;
  runtime?: string;
  /** What the runtime sent in Configure (NRI v0.7+); absent when it sent none. */
  timeouts?: NriTimeouts;
}

/** Registers a short-lived probe plugin to learn whether NRI answers and which version it speaks. */
export async function probeNri(socketPath: string, registrationTimeoutMs = 6_000): Promise<NriFinding> {
  const problem = nriSocketProblem(socketPath);
  if (problem !== undefined) return { unavailable: problem };
  try {
    const probe = await NriPlugin.start({
      socketPath,
      ...PROBE_PLUGIN,
      events: ['RunPodSandbox'],
      acceptsPod: () => false,
      registrationTimeoutMs,
    });
    const sent = probe.runtime;
    const finding: NriFinding = {
      socketPath,
      version: sent.nriVersion,
      runtime: `${sent.name} ${sent.version}`,
      ...(sent.sentTimeouts
        ? { timeouts: { requestMs: sent.requestTimeoutMs, registrationMs: sent.registrationTimeoutMs } }
        : {}),
    };
    await probe.close();
    return finding;
  } catch (e) {
    return { unavailable: `NRI at ${socketPath} did not accept a plugin: ${errorMessage(e)}` };
  }
}

/**
 * Host probes work when cri-conform runs as root on the runtime's node (a unix socket is a local runtime).
 * @param parentPath the pods' cgroup parent below each hierarchy's root (cgroup-parent.ts)
 */
export function nodeProbeAvailability(
  config: Pick<RunConfig, 'nodeProbes' | 'runtimeEndpoint' | 'nodeAnchorPid' | 'netnsDirs'>,
  parentPath?: string,
): NodeHostProbe | { unavailable: string } {
  const view = new NodeView(config.nodeAnchorPid, config.netnsDirs);
  if (config.nodeProbes === 'off') return { unavailable: 'host probes are off (--node-probes off)' };
  if (config.nodeProbes === 'on') return new NodeHostProbe(config.runtimeEndpoint, view, parentPath);
  if (process.platform !== 'linux') return { unavailable: 'host probes need Linux' };
  if (process.getuid?.() !== 0)
    return { unavailable: 'host probes read /proc and cgroups of the runtime: run as root on the node' };
  if (/^(tcp|https?):/.test(config.runtimeEndpoint))
    return { unavailable: 'the runtime endpoint is remote: run cri-conform on the node' };
  return new NodeHostProbe(config.runtimeEndpoint, view, parentPath);
}

export function describeRuntime(v: VersionResponse): string {
  return `${v.runtimeName} ${v.runtimeVersion} (CRI ${v.runtimeApiVersion})`;
}
