import { expect } from 'chai';
import { NriProtocolError } from './errors.js';
import { encodeMessage, isOversized, MessageDecoder, type TtrpcMessage } from './ttrpc-codec.js';

describe('ttrpc message codec', () => {
  it('encodes the 10-byte header: length, stream id, type, flags', () => {
    const b = encodeMessage({ streamId: 1, type: 2, data: new Uint8Array() });
    expect(b.toString('hex')).to.equal('00000000000000010200');
    const r = encodeMessage({ streamId: 5, type: 1, flags: 4, data: Buffer.from('ab') });
    expect(r.toString('hex')).to.equal('000000020000000501046162');
  });

  it('decodes a zero-length message as an empty body', () => {
    const out = new MessageDecoder().push(Buffer.from('00000000000000010200', 'hex'));
    expect(out).to.have.length(1);
    const m = out[0] as TtrpcMessage;
    expect([m.streamId, m.type, m.flags, m.data.length]).to.deep.equal([1, 2, 0, 0]);
  });

  it('reassembles messages split across arbitrary chunk boundaries', () => {
    const d = new MessageDecoder();
    const bytes = Buffer.concat([
      encodeMessage({ streamId: 1, type: 1, data: Buffer.from('first') }),
      encodeMessage({ streamId: 3, type: 1, data: Buffer.from('second') }),
    ]);
    const out = [];
    for (let i = 0; i < bytes.length; i += 3) out.push(...d.push(bytes.subarray(i, i + 3)));
    expect(out.map((m) => (m as TtrpcMessage).data.toString())).to.deep.equal(['first', 'second']);
  });

  it('discards an oversized body whole and decodes the next message', () => {
    const d = new MessageDecoder();
    const over = 4 * 1024 * 1024 + 1;
    const head = Buffer.alloc(10);
    head.writeUInt32BE(over, 0);
    head.writeUInt32BE(7, 4);
    head.writeUInt8(1, 8);
    const first = d.push(head);
    expect(first).to.have.length(1);
    expect(isOversized(first[0]!)).to.equal(true);
    expect(first[0]).to.include({ streamId: 7, oversizedBytes: over });
    const body = Buffer.alloc(over, 1);
    const next = encodeMessage({ streamId: 9, type: 1, data: Buffer.from('ok') });
    const out = [...d.push(body.subarray(0, 1000)), ...d.push(Buffer.concat([body.subarray(1000), next]))];
    expect(out).to.have.length(1);
    expect((out[0] as TtrpcMessage).data.toString()).to.equal('ok');
  });

  it('accepts a body of exactly 4 MiB', () => {
    const size = 4 * 1024 * 1024;
    const out = new MessageDecoder().push(encodeMessage({ streamId: 1, type: 2, data: Buffer.alloc(size) }));
    expect((out[0] as TtrpcMessage).data.length).to.equal(size);
  });

  it('refuses to encode a body over 4 MiB', () => {
    expect(() => encodeMessage({ streamId: 1, type: 1, data: Buffer.alloc(4 * 1024 * 1024 + 1) }))
      .to.throw(NriProtocolError)
      .with.property('code', 'ERR_NRI_MESSAGE_TOO_LARGE');
  });
});
