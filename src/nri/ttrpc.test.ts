import { expect } from 'chai';
import { NriProtocolError } from './errors.js';
import { decodeProto, encodeProto, type WireResponse } from './messages.js';
import { Mux } from './mux.js';
import { type SocketPair, socketPair } from './socket-pair.test.helper.js';
import { TtrpcClient } from './ttrpc-client.js';
import { encodeMessage, MessageDecoder, type TtrpcMessage } from './ttrpc-codec.js';
import { type ServiceMap, type TtrpcCall, TtrpcServer } from './ttrpc-server.js';

const SVC = 'test.Echo';

describe('ttrpc client and server over a mux', () => {
  let pair: SocketPair;
  let serverMux: Mux;
  let clientMux: Mux;
  let client: TtrpcClient;
  const calls: TtrpcCall[] = [];
  let release: () => void = () => {};

  const services: ServiceMap = {
    [SVC]: {
      Echo: (call) => {
        calls.push(call);
        return { payload: call.payload };
      },
      Empty: () => ({}),
      Fail: () => ({ status: { code: 2, message: 'plugin says no' } }),
      Throw: () => {
        throw new Error('boom');
      },
      Slow: () =>
        new Promise((resolve) => {
          release = () => resolve({ payload: Buffer.from('slow') });
        }),
    },
  };

  beforeEach(async () => {
    calls.length = 0;
    pair = await socketPair();
    serverMux = new Mux(pair.server);
    clientMux = new Mux(pair.client);
    new TtrpcServer(serverMux.open(1), services);
    client = new TtrpcClient(clientMux.open(1));
  });
  afterEach(async () => {
    serverMux.close();
    clientMux.close();
    await pair.dispose();
  });

  it('echoes a payload and passes timeout_nano as timeoutMs', async () => {
    const reply = await client.call(SVC, 'Echo', Buffer.from('hi'), {
      timeoutMs: 2000,
      metadata: { K: 'v' },
    });
    expect(reply.toString()).to.equal('hi');
    expect(calls[0]?.timeoutMs).to.be.closeTo(2000, 1);
    expect(calls[0]?.metadata).to.deep.equal({ k: 'v' });
    expect(calls[0]?.streamId).to.equal(1);
  });

  it('numbers client streams 1, 3, 5 and sends no timeout when the caller has no deadline', async () => {
    for (let i = 0; i < 3; i++) await client.call(SVC, 'Echo', Buffer.alloc(0));
    expect(calls.map((c) => c.streamId)).to.deep.equal([1, 3, 5]);
    expect(calls[0]?.timeoutMs).to.equal(undefined);
    expect(calls[0]?.payload.length).to.equal(0);
  });

  it('resolves a zero-length response as an empty message', async () => {
    expect((await client.call(SVC, 'Empty', Buffer.alloc(0))).length).to.equal(0);
  });

  it('carries 6 KB and 3 MB payloads across the Go-style frame split', async () => {
    for (const size of [6000, 3_000_000]) {
      const reply = await client.call(SVC, 'Echo', Buffer.alloc(size, 9));
      expect(reply.length).to.equal(size);
    }
  });

  it('answers an unknown method and an unknown service with status 12', async () => {
    const m = await client.call(SVC, 'Nope', Buffer.alloc(0)).catch((e: unknown) => e);
    expect(m).to.be.instanceOf(NriProtocolError).with.property('status', 12);
    expect((m as Error).message).to.contain('method Nope');
    const s = await client.call('other.Svc', 'X', Buffer.alloc(0)).catch((e: unknown) => e);
    expect(s).to.have.property('code', 'ERR_NRI_TTRPC_STATUS');
    expect((s as Error).message).to.contain('service other.Svc');
  });

  it('turns a handler status and a thrown error into ERR_NRI_TTRPC_STATUS with code 2', async () => {
    const f = await client.call(SVC, 'Fail', Buffer.alloc(0)).catch((e: unknown) => e);
    expect(f).to.have.property('status', 2);
    expect((f as Error).message).to.contain('plugin says no');
    const t = await client.call(SVC, 'Throw', Buffer.alloc(0)).catch((e: unknown) => e);
    expect(t).to.have.property('status', 2);
  });

  it('lets handlers reply out of order', async () => {
    const slow = client.call(SVC, 'Slow', Buffer.alloc(0));
    expect((await client.call(SVC, 'Echo', Buffer.from('fast'))).toString()).to.equal('fast');
    release();
    expect((await slow).toString()).to.equal('slow');
  });

  it('rejects with ERR_NRI_TIMEOUT after timeoutMs and drops the late reply', async () => {
    const err = await client.call(SVC, 'Slow', Buffer.alloc(0), { timeoutMs: 20 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NriProtocolError).with.property('code', 'ERR_NRI_TIMEOUT');
    release();
    expect((await client.call(SVC, 'Echo', Buffer.from('after'))).toString()).to.equal('after');
  });

  it('rejects with ERR_NRI_ABORTED when the signal fires', async () => {
    const ac = new AbortController();
    const p = client.call(SVC, 'Slow', Buffer.alloc(0), { signal: ac.signal });
    ac.abort();
    expect(await p.catch((e: unknown) => e)).to.have.property('code', 'ERR_NRI_ABORTED');
    release();
  });

  it('rejects pending calls with the trunk cause when the peer closes', async () => {
    const p = client.call(SVC, 'Slow', Buffer.alloc(0));
    serverMux.close();
    expect(await p.catch((e: unknown) => e)).to.have.property('code', 'ERR_NRI_PEER_CLOSED');
  });

  it('answers even and reused stream ids with status 3 and keeps the conn open', async () => {
    const raw = new Mux(pair.client);
    const replies: TtrpcMessage[] = [];
    const d = new MessageDecoder();
    const got = new Promise<void>((resolve) =>
      raw.open(1).onData((c) => {
        replies.push(...(d.push(c) as TtrpcMessage[]));
        if (replies.length === 3) resolve();
      }),
    );
    const req = encodeProto('ttrpc.Request', { service: SVC, method: 'Empty' });
    for (const id of [2, 5, 5]) await raw.write(1, encodeMessage({ streamId: id, type: 1, data: req }));
    await got;
    const codes = replies.map((m) => [
      m.streamId,
      decodeProto<WireResponse>('ttrpc.Response', m.data).status?.code ?? 0,
    ]);
    expect(codes).to.deep.include.members([
      [2, 3],
      [5, 0],
      [5, 3],
    ]);
  });

  it('ends the trunk with ERR_NRI_PROTOCOL when a server receives a message type other than request', async () => {
    const raw = new Mux(pair.client);
    await raw.write(1, encodeMessage({ streamId: 1, type: 3, data: Buffer.alloc(0) }));
    expect(await serverMux.closed)
      .to.be.instanceOf(NriProtocolError)
      .with.property('code', 'ERR_NRI_PROTOCOL');
  });
});
