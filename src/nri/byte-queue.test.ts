import { expect } from 'chai';
import { ByteQueue } from './byte-queue.js';

describe('ByteQueue', () => {
  it('returns bytes in order across small, large and partially consumed chunks', () => {
    const q = new ByteQueue();
    const all: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const len = i % 7 === 0 ? 600 : i % 5;
      const chunk = Buffer.alloc(len, i % 256);
      all.push(...chunk);
      q.push(chunk);
      if (i % 11 === 0) {
        const n = Math.min(q.length, 37);
        expect([...q.take(n)]).to.deep.equal(all.splice(0, n));
      }
    }
    expect(q.length).to.equal(all.length);
    expect([...q.take(q.length)]).to.deep.equal(all);
  });

  it('packs a flood of 1-byte chunks into few buffers', () => {
    const q = new ByteQueue();
    for (let i = 0; i < 100_000; i++) q.push(Buffer.from([i & 0xff]));
    expect((q as unknown as { chunks: Buffer[] }).chunks.length).to.be.at.most(7);
    expect(q.readUInt8(99_999)).to.equal(99_999 & 0xff);
    expect(q.readUInt32BE(256)).to.equal(0x00010203);
  });
});
