import { expect } from 'chai';
import { NriProtocolError } from './errors.js';
import { encodeFrame, FrameDecoder } from './frame-decoder.js';

function header(connId: number, length: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(connId, 0);
  b.writeUInt32BE(length, 4);
  return b;
}

describe('FrameDecoder', () => {
  it('decodes a frame with a big-endian conn id and length', () => {
    const frames = new FrameDecoder().push(Buffer.concat([header(2, 3), Buffer.from('abc')]));
    expect(frames).to.have.length(1);
    expect(frames[0]?.connId).to.equal(2);
    expect(frames[0]?.payload.toString()).to.equal('abc');
  });

  it('reassembles a frame delivered one byte at a time', () => {
    const d = new FrameDecoder();
    const bytes = encodeFrame(1, Buffer.from('hello'));
    const out = [...bytes].flatMap((b) => d.push(Buffer.from([b])));
    expect(out.map((f) => f.payload.toString())).to.deep.equal(['hello']);
    expect(d.bufferedBytes).to.equal(0);
  });

  it('returns several frames from one chunk and keeps a partial tail', () => {
    const d = new FrameDecoder();
    const all = Buffer.concat([
      encodeFrame(1, Buffer.from('a')),
      encodeFrame(2, Buffer.from('bb')),
      header(1, 4),
    ]);
    const out = d.push(all);
    expect(out.map((f) => [f.connId, f.payload.toString()])).to.deep.equal([
      [1, 'a'],
      [2, 'bb'],
    ]);
    expect(d.bufferedBytes).to.equal(8);
    expect(d.push(Buffer.from('wxyz')).map((f) => f.payload.toString())).to.deep.equal(['wxyz']);
  });

  it('accepts a zero-length payload', () => {
    const out = new FrameDecoder().push(header(1, 0));
    expect(out).to.have.length(1);
    expect(out[0]?.payload.length).to.equal(0);
  });

  it('accepts a 16 MiB frame split into socket-sized chunks', () => {
    const d = new FrameDecoder();
    const size = 16 * 1024 * 1024;
    const frame = encodeFrame(1, Buffer.alloc(size, 7));
    const out = [];
    for (let i = 0; i < frame.length; i += 65536) out.push(...d.push(frame.subarray(i, i + 65536)));
    expect(out).to.have.length(1);
    expect(out[0]?.payload.length).to.equal(size);
  });

  it('rejects a frame over 16 MiB from its header alone, before the payload arrives', () => {
    const d = new FrameDecoder();
    expect(() => d.push(header(1, 16 * 1024 * 1024 + 1)))
      .to.throw(NriProtocolError)
      .with.property('code', 'ERR_NRI_FRAME_TOO_LARGE');
    expect(d.bufferedBytes).to.equal(8);
    expect(() => d.push(Buffer.from('x'))).to.throw(NriProtocolError);
  });
});
