import { expect } from 'chai';
import { cpuBetween, parseProcStat, parseReapedChildrenTicks, startCpuMeter } from './machine-cpu.js';

const STAT = (user: number, idle: number) =>
  [
    `cpu  ${user} 0 100 ${idle} 50 0 10 0 0 0`,
    'cpu0 1 0 0 1 0 0 0 0 0 0',
    'cpu1 1 0 0 1 0 0 0 0 0 0',
    'intr 12345',
    '',
  ].join('\n');

describe('machine CPU', () => {
  it("reads /proc/stat's busy and total ticks and counts the cores", () => {
    // busy: user 1000 + system 100 + softirq 10; idle and iowait are not busy.
    expect(parseProcStat(STAT(1_000, 5_000))).to.deep.equal({ busy: 1_110, total: 6_160, cores: 2 });
    expect(parseProcStat('intr 1\n')).to.equal(undefined);
    expect(parseProcStat('cpu 1 2 x 4 5 6 7 8\n')).to.equal(undefined);
  });

  it('puts the busy time over every core as the least wall time the work allows', () => {
    const before = { busy: 1_000, total: 10_000, cores: 2 };
    const after = { busy: 19_000, total: 30_000, cores: 2 };
    // 18000 busy ticks of 20000: 180 CPU-seconds, 90 s on two cores.
    expect(cpuBetween(before, after, 12.345)).to.deep.equal({
      cores: 2,
      busySeconds: 180,
      busyPct: 90,
      floorMs: 90_000,
      toolSeconds: 12.3,
    });
  });

  it("reads the reaped children's ticks after the command name, whatever it holds", () => {
    const fields = Array.from({ length: 20 }, (_, i) => String(i));
    // cutime and cstime are fields 16 and 17 of the line, 14th and 15th after the name.
    expect(parseReapedChildrenTicks(`42 (a) b (c) ${fields.join(' ')}`)).to.equal(13 + 14);
    expect(parseReapedChildrenTicks('garbage')).to.equal(0);
  });

  it('measures between start and stop, and nothing where the counters cannot be read', () => {
    const readings = [STAT(1_000, 5_000), STAT(1_400, 5_200)];
    const meter = startCpuMeter(() => parseProcStat(readings.shift() ?? ''));
    const cpu = meter.stop();
    expect(cpu?.busySeconds).to.equal(4);
    expect(cpu?.busyPct).to.equal(67);
    expect(cpu?.floorMs).to.equal(2_000);
    expect(cpu?.toolSeconds).to.be.at.least(0);
    expect(startCpuMeter(() => undefined).stop()).to.equal(undefined);
  });
});
