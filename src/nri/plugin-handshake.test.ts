import { rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { type ClosingServer, listenClosing } from '../closing-server.test.helper.js';
import { decodeProto, encodeProto, PLUGIN_SERVICE, RUNTIME_SERVICE } from './messages.js';
import { Mux } from './mux.js';
import { NriPlugin } from './plugin.js';
import { makeSocketDir } from './socket-pair.test.helper.js';
import { TtrpcClient } from './ttrpc-client.js';
import { TtrpcServer } from './ttrpc-server.js';

/** A scripted runtime built from the wire layers, for orderings the runtime side never produces. */
describe('NriPlugin registration edge cases', () => {
  let dir: string;
  let server: ClosingServer;
  let script: (socket: Socket) => Promise<void>;
  beforeEach(async () => {
    dir = await makeSocketDir();
    server = await listenClosing(join(dir, 'nri.sock'), (s) => void script(s).catch(() => s.destroy()));
  });
  afterEach(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  const start = () =>
    NriPlugin.start({
      socketPath: join(dir, 'nri.sock'),
      name: 'edge',
      index: '10',
      events: ['RunPodSandbox'],
    });

  it('answers Configure and Synchronize before the RegisterPlugin reply, and collects paged Synchronize chunks', async () => {
    const echoed: boolean[] = [];
    script = async (socket) => {
      const mux = new Mux(socket);
      const client = new TtrpcClient(mux.open(1));
      let replyRegister: () => void = () => {};
      const registerReplied = new Promise<Record<string, never>>((r) => (replyRegister = () => r({})));
      let registered: () => void = () => {};
      const gotRegister = new Promise<void>((r) => (registered = r));
      new TtrpcServer(mux.open(2), {
        [RUNTIME_SERVICE]: {
          RegisterPlugin: () => {
            registered();
            return registerReplied;
          },
        },
      });
      await gotRegister;
      const cfg = encodeProto('ConfigureRequest', {
        runtimeName: 'containerd',
        runtimeVersion: '2.1.9',
        requestTimeout: 1000,
      });
      expect(
        decodeProto<{ events: number }>(
          'ConfigureResponse',
          await client.call(PLUGIN_SERVICE, 'Configure', cfg),
        ).events,
      ).to.equal(1);
      const pod = (id: string) => ({
        id,
        name: id,
        linux: { namespaces: [{ type: 'network', path: `/ns/${id}` }] },
      });
      for (const [ids, more] of [
        [['a', 'b'], true],
        [['c'], false],
      ] as const) {
        const req = encodeProto('SynchronizeRequest', { pods: ids.map(pod), more });
        echoed.push(
          decodeProto<{ more: boolean }>(
            'SynchronizeResponse',
            await client.call(PLUGIN_SERVICE, 'Synchronize', req),
          ).more,
        );
      }
      replyRegister();
    };
    const p = await start();
    expect(echoed).to.deep.equal([true, false]);
    expect(p.synchronized.pods.map((x) => `${x.id}:${x.netnsPath}`)).to.deep.equal([
      'a:/ns/a',
      'b:/ns/b',
      'c:/ns/c',
    ]);
    expect(p.runtime).to.include({
      nriVersion: 'v0.8.0',
      requestTimeoutMs: 1000,
      registrationTimeoutMs: 5000,
    });
    await p.close();
  });

  it('rejects when the runtime configures but never synchronizes (NRI 0.6.1 after a failed sync)', async () => {
    script = async (socket) => {
      const mux = new Mux(socket);
      new TtrpcServer(mux.open(2), { [RUNTIME_SERVICE]: { RegisterPlugin: () => ({}) } });
      await new TtrpcClient(mux.open(1)).call(
        PLUGIN_SERVICE,
        'Configure',
        encodeProto('ConfigureRequest', {}),
      );
    };
    const err = await NriPlugin.start({
      socketPath: join(dir, 'nri.sock'),
      name: 'edge',
      index: '10',
      events: ['RunPodSandbox'],
      registrationTimeoutMs: 100,
    }).catch((e: unknown) => e);
    expect(err).to.have.property('code', 'ERR_NRI_REGISTRATION');
    expect((err as Error).message).to.contain('no Synchronize');
  });

  it('rejects with ERR_NRI_REGISTRATION naming the runtime refusal', async () => {
    script = async (socket) => {
      new TtrpcServer(new Mux(socket).open(2), {
        [RUNTIME_SERVICE]: {
          RegisterPlugin: () => ({ status: { code: 2, message: 'invalid plugin index' } }),
        },
      });
    };
    const err = await start().catch((e: unknown) => e);
    expect(err).to.have.property('code', 'ERR_NRI_REGISTRATION');
    expect((err as Error).message).to.contain('invalid plugin index');
  });

  it('rejects with ERR_NRI_REGISTRATION when the runtime closes the connection during registration', async () => {
    script = async (socket) => {
      socket.end();
    };
    expect(await start().catch((e: unknown) => e)).to.have.property('code', 'ERR_NRI_REGISTRATION');
  });
});
