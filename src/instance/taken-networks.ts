/**
 * The IPv4 prefixes a private bridge must not overlap, as `ip` reports them: the routes of every routing
 * table, the prefixes of every policy rule, the local addresses, and what the node is known to reach
 * through its default route (its gateways, its resolvers, the peers of its open sockets). A pod subnet
 * that overlapped any of them would capture traffic the node sends there. Read in the network namespace
 * the copy's bridge goes into and, from a pod, in the node's too.
 */
import { execFileSync } from 'node:child_process';
import type { HostView } from './host-view.js';
import { readTextOrEmpty } from './read-text.js';

export interface Prefix {
  /** Network address as an unsigned 32-bit number. */
  net: number;
  /** Prefix length 0-32. */
  len: number;
  /** Where it was seen, for the message that names a clash. */
  source: string;
}

/** Runs `ip` with these arguments in one network namespace; returns its standard output. */
export type IpRunner = (args: readonly string[]) => string;

/** `ip` as built by `command` (HostView.command: the node's binary, through nsenter from a pod). */
export function ipVia(command: (args: readonly string[]) => { file: string; args: string[] }): IpRunner {
  return (args) => {
    const cmd = command(args);
    return execFileSync(cmd.file, cmd.args, { encoding: 'utf8', timeout: 10_000 });
  };
}

/**
 * Everything taken where the copy's bridge goes (this process's network namespace) and, from a pod, on
 * the node itself: the pod's traffic leaves through the node.
 */
export function takenAround(host: HostView): Prefix[] {
  const peers = (proc: string, where: string) =>
    ['tcp', 'udp'].flatMap((f) => socketPeers(readTextOrEmpty(`${proc}/net/${f}`), where));
  const here = host.inPod ? 'this pod' : 'this node';
  const taken = [
    ...takenBy(
      ipVia((args) => host.command('ip', args)),
      here,
    ),
    ...resolvers(readTextOrEmpty('/etc/resolv.conf'), here),
    ...peers('/proc/self', here),
  ];
  if (host.inPod) {
    taken.push(
      ...takenBy(
        ipVia((args) => host.commandInNodeNetwork('ip', args)),
        'the node',
      ),
      ...resolvers(readTextOrEmpty(host.path('/etc/resolv.conf')), 'the node'),
      ...peers(`/proc/${host.anchor}`, 'the node'),
    );
  }
  return taken;
}

/** Every prefix taken in the namespace `ip` runs in, by every table and rule. */
export function takenBy(ip: IpRunner, where: string): Prefix[] {
  const json = (args: string[]) =>
    JSON.parse(ip(['-j', '-4', ...args]) || '[]') as Array<Record<string, unknown>>;
  const taken: Prefix[] = [];
  for (const r of json(['route', 'show', 'table', 'all'])) {
    const table = String(r.table ?? 'main');
    if (typeof r.dst === 'string' && r.dst !== 'default')
      push(taken, r.dst, `route ${r.dst} in table ${table} (${where})`);
    if (typeof r.gateway === 'string')
      push(taken, r.gateway, `gateway ${r.gateway} in table ${table} (${where})`);
  }
  for (const rule of json(['rule', 'show'])) {
    for (const [addr, len] of [
      [rule.src, rule.srclen],
      [rule.dst, rule.dstlen],
    ] as const) {
      if (typeof addr === 'string' && addr !== 'all')
        push(
          taken,
          `${addr}/${Number(len ?? 32)}`,
          `policy rule ${rule.priority ?? ''} on ${addr}/${len ?? 32} (${where})`,
        );
    }
  }
  for (const link of json(['addr', 'show'])) {
    for (const a of (link.addr_info ?? []) as Array<{ local?: string; prefixlen?: number }>) {
      if (a.local)
        push(
          taken,
          `${a.local}/${a.prefixlen ?? 32}`,
          `address ${a.local}/${a.prefixlen} on ${String(link.ifname)} (${where})`,
        );
    }
  }
  return taken;
}

/** The name servers of a resolv.conf: reached through the default route, so invisible in the tables. */
export function resolvers(resolvConf: string, where: string): Prefix[] {
  const taken: Prefix[] = [];
  for (const m of resolvConf.matchAll(/^\s*nameserver\s+(\d+\.\d+\.\d+\.\d+)\s*$/gm))
    push(taken, m[1] ?? '', `name server ${m[1]} (${where})`);
  return taken;
}

/** Remote IPv4 addresses of the sockets in /proc/<pid>/net/{tcp,udp} text: what the node talks to now. */
export function socketPeers(procNetText: string, where: string): Prefix[] {
  const taken: Prefix[] = [];
  for (const line of procNetText.split('\n').slice(1)) {
    const remote = line.trim().split(/\s+/)[2]?.split(':')[0];
    if (remote === undefined || !/^[0-9A-F]{8}$/i.test(remote)) continue;
    const n = Number.parseInt(remote, 16);
    const addr = [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24].join('.');
    if (addr !== '0.0.0.0' && !addr.startsWith('127.'))
      push(taken, addr, `a connection to ${addr} (${where})`);
  }
  return taken;
}

/** The first taken prefix that overlaps `candidate`, or undefined. */
export function clashOf(candidate: Prefix, taken: readonly Prefix[]): Prefix | undefined {
  return taken.find((t) => {
    const len = Math.min(t.len, candidate.len);
    const mask = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
    return (t.net & mask) >>> 0 === (candidate.net & mask) >>> 0;
  });
}

/** "a.b.c.d/len" (or a bare address: /32) as a Prefix; undefined when it is not one. */
export function parsePrefix(text: string, source = text): Prefix | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\/(\d{1,2}))?$/.exec(text.trim());
  if (!m) return undefined;
  const octets = m.slice(1, 5).map(Number);
  const len = m[5] === undefined ? 32 : Number(m[5]);
  if (octets.some((o) => o > 255) || len > 32) return undefined;
  const net = octets.reduce((acc, o) => ((acc << 8) | o) >>> 0, 0);
  return { net, len, source };
}

export function formatPrefix(p: Prefix): string {
  return `${[p.net >>> 24, (p.net >>> 16) & 0xff, (p.net >>> 8) & 0xff, p.net & 0xff].join('.')}/${p.len}`;
}

function push(taken: Prefix[], text: string, source: string): void {
  const p = parsePrefix(text, source);
  if (p) taken.push(p);
}
