import { expect } from 'chai';
import { resolveRunConfig } from '../cli/resolve-config.js';
import { notStartedOutcome } from '../cli/run-reports.js';
import { EnvironmentError } from './core/errors.js';
import {
  type InstanceRecord,
  type InstanceRequest,
  instanceRecordOf,
  onPrivateInstance,
  type RuntimeInstance,
} from './runtime-instance.js';

const config = resolveRunConfig({ isolated: true }, {}, {});

/** A stand-in for src/instance: remembers what it was asked and whether it was removed. */
function fakeInstance(leftovers: string[] = []) {
  const seen: { request?: InstanceRequest; removed: number } = { removed: 0 };
  const record: InstanceRecord = {
    target: 'node',
    binary: { path: '/usr/bin/containerd', version: 'v', sha256: '0'.repeat(64) },
    sourceConfig: '/etc/containerd/config.toml',
    changed: [],
    dir: '/run/x',
    network: { bridge: 'ccx-1', subnet: '10.214.1.0/24' },
    images: 'imported',
    timingsMs: { start: 1, imageImport: 1 },
  };
  const start = async (request: InstanceRequest): Promise<RuntimeInstance> => {
    seen.request = request;
    return {
      record,
      settings: {
        runtimeEndpoint: 'unix:///run/x/containerd.sock',
        imageEndpoint: 'unix:///run/x/containerd.sock',
        nriSocket: '/run/x/nri.sock',
        nriRequestTimeoutMs: 3_000,
        slowRuntimeHandler: 'conform-slow',
        slowRuntimeDir: '/run/x/slow-runtime',
        slowCniDir: '/run/x/slow-cni',
        restartCmd: 'restart /run/x',
        pauseImage: 'pause:1',
      },
      remove: async () => {
        seen.removed++;
        return leftovers;
      },
    };
  };
  return { start, seen };
}

describe('a run on a private runtime instance', () => {
  it("asks for a copy of the given endpoint's runtime and runs against the copy's settings", async () => {
    const { start, seen } = fakeInstance();
    const { value } = await onPrivateInstance(config, start, new AbortController().signal, async (c) => c);
    expect(seen.request?.endpoint).to.equal('unix:///run/containerd/containerd.sock');
    expect(value.runtimeEndpoint).to.equal('unix:///run/x/containerd.sock');
    expect(value.restartCmd).to.equal('restart /run/x');
    expect(value.nriRequestTimeoutMs).to.equal(3_000);
    expect(value.testImage).to.equal(config.testImage);
  });

  it('removes the copy when the run throws, and records the removal in the record', async () => {
    const { start, seen } = fakeInstance(['bridge ccx-1 still there']);
    let record: InstanceRecord | undefined;
    const failing = onPrivateInstance(config, start, new AbortController().signal, async (_c, r) => {
      record = r;
      throw new Error('runtime not ready');
    });
    await failing.then(
      () => expect.fail('the run error must propagate'),
      (e: Error) => expect(e.message).to.equal('runtime not ready'),
    );
    expect(seen.removed).to.equal(1);
    expect(record?.leftovers).to.deep.equal(['bridge ccx-1 still there']);
    expect(record?.timingsMs.removal).to.be.a('number');
  });

  it('keeps the record on the error of a run that stopped before its first check, for its report', async () => {
    const { start } = fakeInstance();
    const err = await onPrivateInstance(config, start, new AbortController().signal, async () => {
      throw new EnvironmentError('the private copy cannot run a pod');
    }).catch((e: unknown) => e);
    const record = instanceRecordOf(err);
    expect(record?.dir).to.equal('/run/x');
    expect(record?.leftovers).to.deep.equal([]);
    expect(notStartedOutcome(config, err).properties.isolated).to.equal(record);
    expect(notStartedOutcome(config, new EnvironmentError('no copy')).properties.isolated).to.equal(
      undefined,
    );
  });

  it('asks for the node sandbox image unless the pause image was named, and for the named subnet', async () => {
    const { start, seen } = fakeInstance();
    await onPrivateInstance(config, start, new AbortController().signal, async () => undefined);
    expect(seen.request).to.deep.include({ pauseImageNamed: false });
    const named = resolveRunConfig(
      { isolated: true, pauseImage: 'registry.example/pause:1', isolatedSubnet: '192.168.77.0/24' },
      {},
      {},
    );
    await onPrivateInstance(named, start, new AbortController().signal, async () => undefined);
    expect(seen.request).to.deep.include({ pauseImageNamed: true, subnet: '192.168.77.0/24' });
  });
});
