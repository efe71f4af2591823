/**
 * Test fixture: a runtime side on a temp socket plus pod and container builders, shared by the
 * end-to-end tests of the plugin and the fuzz test.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { NriRuntime, type NriRuntimeOptions, type PluginSummary } from './runtime-side.js';
import { makeSocketDir } from './socket-pair.js';
import type { NriContainer, NriPod } from './types.js';

export interface RuntimeFixture {
  runtime: NriRuntime;
  socketPath: string;
  /** Resolves once `predicate` holds for the plugin list (checked now and on every change). */
  pluginsWhere(predicate: (plugins: PluginSummary[]) => boolean): Promise<PluginSummary[]>;
  dispose(): Promise<void>;
}

export async function startRuntime(overrides: Partial<NriRuntimeOptions> = {}): Promise<RuntimeFixture> {
  const dir = await makeSocketDir();
  const socketPath = join(dir, 'nri.sock');
  const runtime = await NriRuntime.listen({
    socketPath,
    runtimeName: 'reference',
    runtimeVersion: '0.1.0',
    requestTimeoutMs: 2000,
    registrationTimeoutMs: 5000,
    podEventsVia: 'dedicated',
    sync: () => ({ pods: [], containers: [] }),
    ...overrides,
  });
  return {
    runtime,
    socketPath,
    pluginsWhere(predicate) {
      return new Promise((resolve) => {
        if (predicate(runtime.plugins())) return resolve(runtime.plugins());
        const off = runtime.onPluginChange((list) => {
          if (!predicate(list)) return;
          off();
          resolve(list);
        });
      });
    },
    async dispose() {
      await runtime.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function makePod(id: string, extra: Partial<NriPod> = {}): NriPod {
  return {
    id,
    name: `pod-${id}`,
    uid: `uid-${id}`,
    namespace: 'default',
    labels: {},
    annotations: {},
    runtimeHandler: '',
    pid: 0,
    netnsPath: '',
    ips: [],
    ...extra,
  };
}

export function makeContainer(id: string, pod: NriPod, extra: Partial<NriContainer> = {}): NriContainer {
  return { id, podSandboxId: pod.id, name: `ctr-${id}`, state: 0, labels: {}, pid: 0, ...extra };
}
