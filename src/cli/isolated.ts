/**
 * `--isolated` for run and doctor: the command's work runs against a private instance of the node's
 * runtime (src/instance), which is removed afterwards whatever happened. Without the flag the work runs
 * against the given endpoint as before.
 */
import { EnvironmentError } from '../harness/core/errors.js';
import type { RunConfig } from '../harness/core/settings.js';
import {
  type InstanceRecord,
  instanceRecordOf,
  type StartInstance,
  withInstanceRecord,
} from '../harness/runtime-instance.js';
import type { Io } from './io.js';

export async function maybeIsolated<T>(
  config: RunConfig,
  io: Io,
  body: (config: RunConfig) => Promise<T>,
  { announce = true }: { announce?: boolean } = {},
): Promise<{ value: T; record?: InstanceRecord }> {
  if (!config.isolated) return { value: await body(config) };
  const note = (text: string) => io.err(`cri-conform: ${text}\n`);
  await sweepKilledInstances(config.runtimeEndpoint, note);
  const [{ onPrivateInstance }, { startPrivateInstance }] = await Promise.all([
    import('../harness/runtime-instance.js'),
    import('../instance/index.js'),
  ]);
  const start: StartInstance = async (request) => {
    try {
      return await startPrivateInstance(request);
    } catch (e) {
      // Everything that stops the start is the setup's, not the node runtime's: exit 2, one line.
      const wrapped = new EnvironmentError(`--isolated: ${e instanceof Error ? e.message : String(e)}`);
      const record = instanceRecordOf(e);
      return Promise.reject(record ? withInstanceRecord(wrapped, record) : wrapped);
    }
  };
  try {
    const done = await onPrivateInstance(config, start, io.signal, async (privateConfig, record) => {
      if (announce) {
        note(describeInstance(record));
        for (const line of record.imageNotes ?? []) note(line);
      }
      return body(privateConfig);
    });
    note(removalNote(done.record, config));
    return done;
  } catch (e) {
    const record = instanceRecordOf(e);
    if (record) note(removalNote(record, config));
    throw e;
  }
}

function removalNote({ leftovers = [], timingsMs }: InstanceRecord, config: RunConfig): string {
  return leftovers.length === 0
    ? `private instance removed in ${timingsMs.removal} ms; nothing of it is left on the host`
    : `private instance removal left: ${leftovers.join('; ')} (run: cri-conform cleanup --isolated -r ${config.runtimeEndpoint})`;
}

/**
 * Before a new instance starts: the instances of this runtime whose runs were killed, as the Sonobuoy
 * worker's next pod does, and CNI caches of the tool's pods whose network is gone. A failure here never
 * stops the run: its own instance is a fresh one.
 */
async function sweepKilledInstances(endpoint: string, note: (text: string) => void): Promise<void> {
  const { nodeViewOf, sweepDeadInstances } = await import('../instance/sweep.js');
  try {
    const swept = await sweepDeadInstances(endpoint, nodeViewOf(endpoint));
    for (const { dir, leftovers } of swept.instances)
      note(
        leftovers.length === 0
          ? `removed the private instance ${dir} a killed run left`
          : `removing the private instance ${dir} a killed run left did not remove: ${leftovers.join('; ')} (recorded for the next cleanup --isolated)`,
      );
    if (swept.cniFiles.length > 0)
      note(`removed ${swept.cniFiles.length} CNI cache files of pods whose network namespace is gone`);
  } catch (e) {
    note(
      `removing the private instances killed runs left failed: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

export function describeInstance(r: InstanceRecord): string {
  const version = r.binary.version.split(' ').slice(2, 3).join('') || r.binary.version;
  return `private instance of ${r.target}: ${r.binary.path} ${version} (sha256 ${r.binary.sha256.slice(0, 12)}), config from ${r.sourceConfig}, ${r.changed.length} settings changed; in ${r.dir}, bridge ${r.network.bridge} ${r.network.subnet}; ${r.images}; started in ${r.timingsMs.start} ms, images ${r.timingsMs.imageImport} ms`;
}
