/**
 * The cgroup driver is learnt from the runtime: RuntimeConfig where it answers, else containerd's verbose
 * Status config, per handler the run uses; a runtime that tells neither leaves it unknown.
 */
import { status } from '@grpc/grpc-js';
import { expect } from 'chai';
import { CriClient } from '../../cri/client.js';
import { type Handler, type Running, socketDir, startCriServer } from '../../cri/fake-cri.test.helper.js';
import { containerdHandlerDrivers, learnCgroupDriver } from './cgroup-driver.js';

/** containerd 1.7's verbose Status `config`, cut to what matters: two runc handlers and a non-runc one. */
function containerdConfig(
  runc: Record<string, unknown> | null,
  slow: Record<string, unknown> | null,
): string {
  return JSON.stringify({
    containerd: {
      defaultRuntimeName: 'runc',
      runtimes: {
        runc: { runtimeType: 'io.containerd.runc.v2', options: runc },
        'conform-slow': { runtimeType: 'io.containerd.runc.v2', options: slow },
        kata: { runtimeType: 'io.containerd.kata.v2', options: { ConfigPath: '/etc/kata.toml' } },
      },
    },
    sandboxImage: 'pause:1',
  });
}

describe('containerd handler drivers from the verbose Status config', () => {
  it("reads each handler's SystemdCgroup, the default handler ('') by defaultRuntimeName", () => {
    const config = containerdConfig({ SystemdCgroup: true }, { SystemdCgroup: false, BinaryName: '/x' });
    expect([...containerdHandlerDrivers(config, ['', 'conform-slow'])]).to.deep.equal([
      ['', 'systemd'],
      ['conform-slow', 'cgroupfs'],
    ]);
  });

  it('counts a runc handler without the option as cgroupfs, and names no driver for another shim', () => {
    const config = containerdConfig({ BinaryName: '/usr/sbin/runc' }, null);
    expect([...containerdHandlerDrivers(config, ['runc', 'conform-slow', 'kata', 'absent'])]).to.deep.equal([
      ['runc', 'cgroupfs'],
      ['conform-slow', 'cgroupfs'],
    ]);
  });

  it('names nothing for a config that is not containerd JSON', () => {
    expect(containerdHandlerDrivers('not json', ['']).size).to.equal(0);
    expect(containerdHandlerDrivers('{"sandboxImage":"x"}', ['']).size).to.equal(0);
  });
});

describe('learning the cgroup driver from a runtime', () => {
  const sockets = socketDir();
  let n = 0;
  const servers: Running[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    sockets.remove();
  });

  async function learn(handlers: Record<string, Handler>, runHandlers = ['', 'conform-slow']) {
    const server = await startCriServer(`${sockets.dir}/cri-${n++}.sock`, {
      Version: () => ({
        version: '0.1.0',
        runtimeName: 'fake',
        runtimeVersion: '1',
        runtimeApiVersion: 'v1',
      }),
      ...handlers,
    });
    servers.push(server);
    const client = await CriClient.connect({ runtimeEndpoint: server.endpoint });
    try {
      return await learnCgroupDriver(client, runHandlers);
    } finally {
      client.close();
    }
  }

  const statusWith = (config?: string) => () => ({
    status: { conditions: [] },
    info: config === undefined ? {} : { config },
  });

  it('takes RuntimeConfig when the runtime answers it, and still reads the handlers from Status', async () => {
    const learnt = await learn({
      RuntimeConfig: () => ({ linux: { cgroupDriver: 'SYSTEMD' } }),
      Status: statusWith(containerdConfig({ SystemdCgroup: true }, { SystemdCgroup: false })),
    });
    expect(learnt.driver).to.equal('systemd');
    expect(learnt.source).to.equal('CRI RuntimeConfig');
    expect(learnt.handlers.get('conform-slow')).to.equal('cgroupfs');
  });

  it('reads CGROUPFS from RuntimeConfig, and the zero value SYSTEMD only when the Linux part is there', async () => {
    expect((await learn({ RuntimeConfig: () => ({ linux: { cgroupDriver: 'CGROUPFS' } }) })).driver).to.equal(
      'cgroupfs',
    );
    expect((await learn({ RuntimeConfig: () => ({ linux: {} }) })).driver).to.equal('systemd');
    const empty = await learn({ RuntimeConfig: () => ({}), Status: statusWith() });
    expect(empty.driver).to.equal(undefined);
  });

  it("falls back to containerd's Status config where RuntimeConfig is unimplemented (containerd 1.7)", async () => {
    const learnt = await learn({
      Status: statusWith(containerdConfig({ SystemdCgroup: true }, { SystemdCgroup: true })),
    });
    expect(learnt.driver).to.equal('systemd');
    expect(learnt.source).to.equal("containerd's Status config: runtimes.runc.options.SystemdCgroup");
    expect(learnt.notes).to.deep.equal(['RuntimeConfig is not implemented']);
  });

  it('knows nothing when neither tells, and says why for each source', async () => {
    const learnt = await learn({
      RuntimeConfig: () => {
        throw Object.assign(new Error('boom'), { code: status.INTERNAL, details: 'boom' });
      },
      Status: statusWith('{"sandboxImage":"x"}'),
    });
    expect(learnt.driver).to.equal(undefined);
    expect(learnt.source).to.equal('not told by the runtime');
    expect(learnt.notes[0]).to.match(/^RuntimeConfig failed: .*INTERNAL/);
    expect(learnt.notes[1]).to.equal('verbose Status config names no runc options for handler ""');
  });
});
