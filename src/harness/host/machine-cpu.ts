/**
 * What this machine's CPUs did while a run went on (RunOutcome.cpu). A run on a small node can be bound by
 * the work it asks of the runtime (every shim, runc and CNI plugin run) rather than by the waits its
 * contracts require; the CPU floor says which: the busy CPU time spread over every core is the least wall
 * time that work allows here, whatever the schedule. The counters are the whole machine's, so a node busy
 * with other pods raises the floor too, which the busy share beside it shows.
 */
import { readFileSync } from 'node:fs';
import { statFieldsAfterCommand } from './proc.js';

export interface MachineCpu {
  /** Cores the machine's counters cover (the cpuN lines of /proc/stat). */
  cores: number;
  /** CPU-seconds every process and the kernel kept the cores busy. */
  busySeconds: number;
  /** Busy time against all the cores had, in percent. */
  busyPct: number;
  /** The busy time spread over every core: the least wall time this work allows on this machine. */
  floorMs: number;
  /** CPU-seconds of the tool itself and of the commands it waited for. */
  toolSeconds: number;
}

/**
 * /proc's CPU counters tick at USER_HZ, which Linux fixes at 100 for userspace on every architecture the
 * tool runs on (the kernel's own HZ is hidden behind it).
 */
const USER_HZ = 100;

export interface CpuCounters {
  /** Ticks the cores were busy: user to steal, less idle and iowait. */
  busy: number;
  total: number;
  cores: number;
}

/** Parses /proc/stat: the aggregate line's first eight fields (guest time is inside user already). */
export function parseProcStat(text: string): CpuCounters | undefined {
  const lines = text.split('\n');
  const head = lines[0]?.trim().split(/\s+/) ?? [];
  if (head[0] !== 'cpu' || head.length < 9) return undefined;
  const n = head.slice(1, 9).map(Number);
  if (n.some((x) => !Number.isFinite(x))) return undefined;
  const idle = (n[3] ?? 0) + (n[4] ?? 0);
  const total = n.reduce((a, b) => a + b, 0);
  const cores = lines.filter((l) => /^cpu\d+\s/.test(l)).length;
  return { busy: total - idle, total, cores: Math.max(1, cores) };
}

/** The machine's CPU counters now, or undefined where there is no /proc/stat to read. */
export function readCpuCounters(path = '/proc/stat'): CpuCounters | undefined {
  try {
    return parseProcStat(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Parses /proc/self/stat for the CPU ticks of reaped children (cutime + cstime). */
export function parseReapedChildrenTicks(text: string): number {
  const fields = statFieldsAfterCommand(text) ?? [];
  // cutime and cstime: fields 16 and 17 of the line.
  const ticks = Number(fields[13]) + Number(fields[14]);
  return Number.isFinite(ticks) ? ticks : 0;
}

/** The tool's CPU so far in seconds: this process's threads and the commands it ran and waited for. */
function toolCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  let children = 0;
  try {
    children = parseReapedChildrenTicks(readFileSync('/proc/self/stat', 'utf8')) / USER_HZ;
  } catch {
    // Not Linux: the process's own time is all there is to count.
  }
  return (user + system) / 1e6 + children;
}

/** What the CPUs did between two readings of the counters. */
export function cpuBetween(before: CpuCounters, after: CpuCounters, toolSeconds: number): MachineCpu {
  const busy = Math.max(0, after.busy - before.busy);
  const total = Math.max(1, after.total - before.total);
  const tenths = (x: number) => Math.round(x * 10) / 10;
  return {
    cores: after.cores,
    busySeconds: tenths(busy / USER_HZ),
    busyPct: Math.round((100 * busy) / total),
    floorMs: Math.round(((busy / USER_HZ) * 1000) / after.cores),
    toolSeconds: tenths(toolSeconds),
  };
}

/** Starts measuring now; `stop()` says what the CPUs did since, or undefined without /proc/stat. */
export function startCpuMeter(read = readCpuCounters): { stop(): MachineCpu | undefined } {
  const before = read();
  const toolBefore = toolCpuSeconds();
  return {
    stop() {
      const after = read();
      return before && after ? cpuBetween(before, after, toolCpuSeconds() - toolBefore) : undefined;
    },
  };
}
