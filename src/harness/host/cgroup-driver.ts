/**
 * Which cgroup driver the runtime puts pods in, learnt from the runtime itself as the kubelet learns it:
 * the CRI RuntimeConfig call where the runtime answers it (containerd 2.0+, CRI-O 1.28+), otherwise
 * containerd's verbose Status, whose `config` holds each runtime handler's runc options (containerd 1.7).
 * A runc handler's `SystemdCgroup` option decides its driver: runc refuses a cgroupfs path on the systemd
 * driver ("expected cgroupsPath to be of format slice:prefix:name") and a slice on cgroupfs, so a pod
 * whose cgroup parent is in the other driver never starts.
 */
import type { CriClient } from '../../cri/client.js';
import { CriCallError } from '../../cri/errors.js';
import { GRPC_UNIMPLEMENTED } from '../../nri/grpc-codes.js';
import { errorMessage } from '../core/errors.js';

export type CgroupDriver = 'systemd' | 'cgroupfs';

export interface LearntDriver {
  /** Undefined when the runtime says nothing that tells it. */
  driver?: CgroupDriver;
  /** Where it was read: "CRI RuntimeConfig", "containerd's Status config: runtimes.runc.options.SystemdCgroup". */
  source: string;
  /** The driver of each handler the run uses, where the runtime's config names it ('' is the default). */
  handlers: ReadonlyMap<string, CgroupDriver>;
  /** Why a source said nothing, for a runtime that told nothing at all. */
  notes: string[];
}

const CALL_DEADLINE_MS = 5_000;
/** runc's shims, whose options carry SystemdCgroup (containerd's runc.v1 is gone in 2.0). */
const RUNC_TYPES = new Set(['io.containerd.runc.v2', 'io.containerd.runc.v1']);

/** @param handlers the handlers the run's pods use, as sent in RunPodSandbox ('' for the default) */
export async function learnCgroupDriver(
  client: CriClient,
  handlers: readonly string[],
): Promise<LearntDriver> {
  const notes: string[] = [];
  const fromCall = await runtimeConfigDriver(client).catch((e: unknown) => {
    notes.push(
      e instanceof CriCallError && e.status === GRPC_UNIMPLEMENTED
        ? 'RuntimeConfig is not implemented'
        : `RuntimeConfig failed: ${errorMessage(e)}`,
    );
    return undefined;
  });
  const config = await client
    .call('Status', { verbose: true }, { deadlineMs: CALL_DEADLINE_MS })
    .then((s) => {
      if (s.info.config === undefined) notes.push('verbose Status has no config');
      return s.info.config;
    })
    .catch((e: unknown) => {
      notes.push(`verbose Status failed: ${errorMessage(e)}`);
      return undefined;
    });
  const byHandler = config === undefined ? new Map() : containerdHandlerDrivers(config, handlers);
  if (fromCall) return { driver: fromCall, source: 'CRI RuntimeConfig', handlers: byHandler, notes };
  const main = handlers[0] ?? '';
  const mainDriver = byHandler.get(main);
  if (mainDriver) {
    const name = main || (parseConfig(config)?.containerd?.defaultRuntimeName ?? '?');
    const source = `containerd's Status config: runtimes.${name}.options.SystemdCgroup`;
    return { driver: mainDriver, source, handlers: byHandler, notes };
  }
  if (config !== undefined) notes.push(`verbose Status config names no runc options for handler "${main}"`);
  return { source: 'not told by the runtime', handlers: byHandler, notes };
}

async function runtimeConfigDriver(client: CriClient): Promise<CgroupDriver | undefined> {
  const reply = await client.call('RuntimeConfig', {}, { deadlineMs: CALL_DEADLINE_MS });
  // SYSTEMD is the enum's zero value: only a reply that carries the Linux part says anything.
  if (!reply.linux) return undefined;
  return reply.linux.cgroupDriver === 'CGROUPFS' ? 'cgroupfs' : 'systemd';
}

interface ContainerdCriConfig {
  containerd?: {
    defaultRuntimeName?: string;
    runtimes?: Record<string, { runtimeType?: string; options?: Record<string, unknown> | null }>;
  };
}

function parseConfig(text: string | undefined): ContainerdCriConfig | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as ContainerdCriConfig) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The driver of each handler in containerd's CRI config, as JSON in the verbose Status's `config`
 * (pkg/cri/config Config: containerd.defaultRuntimeName, containerd.runtimes.<name>.runtimeType and
 * .options, the TOML options as written). A runc handler without `SystemdCgroup` is on cgroupfs, as
 * containerd's own RuntimeConfig counts it (internal/cri/server/runtime_config_linux.go); a handler of
 * another shim names no driver. The default handler is '' here, as RunPodSandbox names it.
 */
export function containerdHandlerDrivers(
  configJson: string,
  handlers: readonly string[],
): Map<string, CgroupDriver> {
  const containerd = parseConfig(configJson)?.containerd;
  const found = new Map<string, CgroupDriver>();
  for (const handler of handlers) {
    const runtime = containerd?.runtimes?.[handler === '' ? (containerd.defaultRuntimeName ?? '') : handler];
    const systemd = runtime?.options?.SystemdCgroup;
    if (typeof systemd === 'boolean') found.set(handler, systemd ? 'systemd' : 'cgroupfs');
    else if (runtime && RUNC_TYPES.has(runtime.runtimeType ?? '')) found.set(handler, 'cgroupfs');
  }
  return found;
}
