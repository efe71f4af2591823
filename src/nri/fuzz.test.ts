import { rm } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { makePod, type RuntimeFixture, startRuntime } from '../../fixtures/nri-runtime-side/e2e-fixture.js';
import { NriProtocolError } from './errors.js';
import { encodeFrame, FrameDecoder } from './frame-decoder.js';
import { encodeProto, PLUGIN_SERVICE, RUNTIME_SERVICE } from './messages.js';
import { Mux } from './mux.js';
import { NriPlugin } from './plugin.js';
import { makeSocketDir } from './socket-pair.test.helper.js';
import { TtrpcClient } from './ttrpc-client.js';
import { encodeMessage, MessageDecoder } from './ttrpc-codec.js';
import { TtrpcServer } from './ttrpc-server.js';

const SEED = 0x5eed_2026;
const DECODER_CASES = 3000;
const SOCKET_CASES_PER_SIDE = 600;
const BATCH = 25;

/** mulberry32: small, fast and deterministic. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function request(service: string, method: string, payload: Uint8Array, streamId: number): Buffer {
  return encodeMessage({
    streamId,
    type: 1,
    data: encodeProto('ttrpc.Request', { service, method, payload }),
  });
}

/** A random case: valid frames (maybe mutated), random bytes, or hostile headers. */
function makeCase(rand: () => number, service: string, connId: number): Buffer {
  const int = (n: number) => Math.floor(rand() * n);
  const pod = encodeProto('StateChangeEvent', { event: 1 + int(14), pod: { id: `p${int(9)}`, name: 'n' } });
  const valid = [
    encodeFrame(connId, request(service, 'StateChange', pod, 1 + 2 * int(50))),
    encodeFrame(
      connId,
      request(
        service,
        ['Configure', 'Synchronize', 'Nope', 'RunPodSandbox'][int(4)] ?? 'x',
        Buffer.alloc(int(20), int(256)),
        1 + 2 * int(50),
      ),
    ),
    encodeFrame(
      int(5),
      request(service, 'RegisterPlugin', Buffer.from([0x0a, 0x01, 0x78, 0x12, 0x02, 0x31, 0x30]), 1),
    ),
  ];
  const kind = int(5);
  if (kind === 0) return Buffer.from(Array.from({ length: int(64) }, () => int(256)));
  if (kind === 1) {
    const h = Buffer.alloc(8 + int(16));
    h.writeUInt32BE(int(4), 0);
    h.writeUInt32BE(rand() < 0.5 ? 0xffffffff : 16 * 1024 * 1024 + int(1000), 4);
    return h;
  }
  const bytes = Buffer.concat(Array.from({ length: 1 + int(3) }, () => valid[int(valid.length)] as Buffer));
  if (kind === 2) return bytes.subarray(0, int(bytes.length)); // truncated
  for (let i = 0, n = 1 + int(4); i < n; i++) bytes[int(bytes.length)] = int(256); // mutated
  if (kind === 3 && bytes.length > 16) bytes[16] = 1 + int(8); // often a foreign ttrpc message type
  return bytes;
}

const ALLOWED_CLOSE = ['ERR_NRI_FRAME_TOO_LARGE', 'ERR_NRI_PROTOCOL', 'ERR_NRI_PEER_CLOSED'];

describe('fuzz: random and mutated frames', function () {
  this.timeout(60_000);
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  before(() => process.on('unhandledRejection', onUnhandled));
  after(() => process.off('unhandledRejection', onUnhandled));
  afterEach(() => expect(unhandled, 'unhandled rejections').to.deep.equal([]));

  it(`never throws anything but NriProtocolError from the decoders (${DECODER_CASES} cases)`, () => {
    const rand = prng(SEED);
    for (let i = 0; i < DECODER_CASES; i++) {
      const frames = new FrameDecoder();
      const messages = new MessageDecoder();
      const bytes = makeCase(rand, PLUGIN_SERVICE, 1);
      try {
        for (let at = 0; at < bytes.length; ) {
          const step = 1 + Math.floor(rand() * 40);
          for (const f of frames.push(bytes.subarray(at, at + step))) messages.push(f.payload);
          at += step;
        }
      } catch (err) {
        expect(err).to.be.instanceOf(NriProtocolError);
      }
      expect(frames.bufferedBytes).to.be.at.most(bytes.length);
    }
  });

  it(`keeps the plugin side alive or closes it with an NriProtocolError (${SOCKET_CASES_PER_SIDE} connections)`, async () => {
    const dir = await makeSocketDir();
    const path = join(dir, 'fake-runtime.sock');
    const rand = prng(SEED + 1);
    const server: Server = createServer(
      (socket) => void fakeRuntime(socket, makeCase(rand, PLUGIN_SERVICE, 1)),
    );
    await new Promise<void>((r) => server.listen(path, r));
    const outcomes = new Map<string, number>();
    try {
      await startPluginsAgainst(path, outcomes);
    } finally {
      server.close();
      await rm(dir, { recursive: true, force: true });
    }
    expect([...outcomes.values()].reduce((a, b) => a + b, 0)).to.equal(SOCKET_CASES_PER_SIDE);
  });

  async function startPluginsAgainst(path: string, outcomes: Map<string, number>): Promise<void> {
    for (let done = 0; done < SOCKET_CASES_PER_SIDE; done += BATCH) {
      const batch = Array.from({ length: BATCH }, async (_, i) => {
        const p = await NriPlugin.start({
          socketPath: path,
          name: 'fuzz',
          index: String((i % 90) + 10),
          events: ['RunPodSandbox'],
        });
        const cause = await p.closed;
        expect(cause).to.be.instanceOf(NriProtocolError);
        const code = (cause as NriProtocolError).code;
        expect(ALLOWED_CLOSE).to.include(code);
        outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
      });
      await Promise.all(batch);
    }
  }

  it(`keeps the runtime side serving after ${SOCKET_CASES_PER_SIDE} hostile connections`, async () => {
    const fx: RuntimeFixture = await startRuntime({ registrationTimeoutMs: 500, requestTimeoutMs: 200 });
    const rand = prng(SEED + 2);
    for (let done = 0; done < SOCKET_CASES_PER_SIDE; done += BATCH) {
      await Promise.all(
        Array.from({ length: BATCH }, () => hostileClient(fx.socketPath, makeCase(rand, RUNTIME_SERVICE, 2))),
      );
    }
    const p = await NriPlugin.start({
      socketPath: fx.socketPath,
      name: 'after-fuzz',
      index: '50',
      events: ['RunPodSandbox'],
    });
    await fx.pluginsWhere((l) => l.some((x) => x.name === 'after-fuzz'));
    const results = await fx.runtime.deliver('RunPodSandbox', makePod('alive'));
    expect(results.find((r) => r.plugin === 'after-fuzz')?.outcome).to.equal('ok');
    await p.close();
    await fx.dispose();
  });
});

/** Registers the plugin like a runtime would, then writes `garbage` raw and half-closes. */
async function fakeRuntime(socket: Socket, garbage: Buffer): Promise<void> {
  const mux = new Mux(socket);
  new TtrpcServer(mux.open(2), { [RUNTIME_SERVICE]: { RegisterPlugin: () => ({}) } });
  const client = new TtrpcClient(mux.open(1));
  try {
    await client.call(PLUGIN_SERVICE, 'Configure', encodeProto('ConfigureRequest', { runtimeName: 'fuzz' }));
    await client.call(PLUGIN_SERVICE, 'Synchronize', new Uint8Array());
    // Let the plugin finish start() (it resolves once its reply is written), then attack.
    await new Promise((r) => setImmediate(r));
    socket.write(garbage);
    socket.end();
  } catch {
    socket.destroy();
  }
}

/** Connects, writes `bytes`, half-closes, and resolves when the runtime side has closed the socket. */
function hostileClient(path: string, bytes: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const s = createConnection(path, () => {
      s.write(bytes);
      s.end();
    });
    s.on('data', () => {});
    s.on('error', () => {});
    s.on('close', () => resolve());
  });
}
