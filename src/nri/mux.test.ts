import type { Socket } from 'node:net';
import { expect } from 'chai';
import { NriProtocolError } from './errors.js';
import { encodeFrame, FrameDecoder, type MuxFrame } from './frame-decoder.js';
import { Mux, splitLikeGo } from './mux.js';
import { type SocketPair, socketPair } from './socket-pair.test.helper.js';

/** Resolves with the first `n` raw frames that arrive on `socket`. */
function rawFrames(socket: Socket, n: number): Promise<MuxFrame[]> {
  const d = new FrameDecoder();
  const got: MuxFrame[] = [];
  return new Promise((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      got.push(...d.push(chunk));
      if (got.length >= n) resolve(got);
    });
  });
}

function nextChunk(mux: Mux, id: number): Promise<Buffer> {
  return new Promise((resolve) => mux.open(id).onData(resolve));
}

describe('Mux', () => {
  let pair: SocketPair;
  beforeEach(async () => {
    pair = await socketPair();
  });
  afterEach(() => pair.dispose());

  it('splits a message like Go: one frame up to 4096 bytes, else exactly [4096][rest]', async () => {
    expect(splitLikeGo(1, Buffer.alloc(4096)).map((f) => f.length - 8)).to.deep.equal([4096]);
    expect(splitLikeGo(1, Buffer.alloc(4097)).map((f) => f.length - 8)).to.deep.equal([4096, 1]);
    const mux = new Mux(pair.client);
    const frames = rawFrames(pair.server, 3);
    await mux.write(2, Buffer.alloc(100, 1));
    await mux.write(1, Buffer.alloc(3_000_016, 2));
    const got = await frames;
    expect(got.map((f) => [f.connId, f.payload.length])).to.deep.equal([
      [2, 100],
      [1, 4096],
      [1, 3_000_016 - 4096],
    ]);
    mux.close();
  });

  it('delivers frames of conns 1 and 2 to their receivers and drops unknown conn ids', async () => {
    const mux = new Mux(pair.client);
    const one = nextChunk(mux, 1);
    const two = nextChunk(mux, 2);
    pair.server.write(Buffer.concat([encodeFrame(7, Buffer.from('x')), encodeFrame(2, Buffer.from('two'))]));
    pair.server.write(encodeFrame(1, Buffer.from('one')));
    expect((await two).toString()).to.equal('two');
    expect((await one).toString()).to.equal('one');
    expect(mux.isClosed).to.equal(false);
    mux.close();
  });

  it('refuses to open conn 0', () => {
    const mux = new Mux(pair.client);
    expect(() => mux.open(0)).to.throw(RangeError);
    mux.close();
  });

  it('ends every conn with the first cause and keeps it when closed twice', async () => {
    const mux = new Mux(pair.client);
    const causes: Error[] = [];
    mux.open(1).onClose((e) => causes.push(e));
    mux.open(2).onClose((e) => causes.push(e));
    const first = new NriProtocolError('ERR_NRI_PROTOCOL', 'first');
    mux.close(first);
    mux.close(new Error('second'));
    expect(causes).to.deep.equal([first, first]);
    expect(await mux.closed).to.equal(first);
    const late: Error[] = [];
    mux.open(3).onClose((e) => late.push(e));
    expect(late).to.deep.equal([first]);
  });

  it('settles closed with undefined when closed locally without a cause', async () => {
    const mux = new Mux(pair.client);
    mux.close();
    expect(await mux.closed).to.equal(undefined);
    const err = await mux.write(1, Buffer.from('x')).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NriProtocolError).with.property('code', 'ERR_NRI_CLOSED');
  });

  it('reports EOF from the peer as ERR_NRI_PEER_CLOSED on every conn', async () => {
    const mux = new Mux(pair.client);
    const ended = new Promise<Error>((resolve) => mux.open(1).onClose(resolve));
    pair.server.end();
    expect(await ended)
      .to.be.instanceOf(NriProtocolError)
      .with.property('code', 'ERR_NRI_PEER_CLOSED');
    expect(await mux.closed).to.have.property('code', 'ERR_NRI_PEER_CLOSED');
  });

  it('ends the trunk with ERR_NRI_FRAME_TOO_LARGE when a header announces more than 16 MiB', async () => {
    const mux = new Mux(pair.client);
    const header = Buffer.alloc(8);
    header.writeUInt32BE(1, 0);
    header.writeUInt32BE(0xffffffff, 4);
    pair.server.write(header);
    expect(await mux.closed)
      .to.be.instanceOf(NriProtocolError)
      .with.property('code', 'ERR_NRI_FRAME_TOO_LARGE');
  });
});
