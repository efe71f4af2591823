/**
 * The private instance's pod network: a bridge of its own on a /24 that overlaps no route and no address
 * of the host, claimed so that two private instances never pick the same one, and a CNI conflist whose
 * bridge entry is the slow CNI wrapper (scripts/lib/cni-slow.sh) around the node's own bridge plugin.
 */
import { mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';

/** Claims of subnet numbers: one symlink per number, pointing at the owning instance's directory. */
export const NETWORK_CLAIMS = '/run/cri-conform/isolated-networks';
/** 10.214.N.0/24; the throwaway instances of scripts/containerd-up.sh use 10.213. */
const PREFIX = [10, 214];

export interface PrivateNetwork {
  number: number;
  bridge: string;
  subnet: string;
  name: string;
}

interface Route {
  dest: number;
  mask: number;
}

/** Destination and mask of each IPv4 route in the text of /proc/net/route (little-endian hex). */
export function parseRoutes(text: string): Route[] {
  return text
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 8)
    .map((f) => ({ dest: leHex(f[1] ?? '0'), mask: leHex(f[7] ?? '0') }))
    .filter((r) => r.mask !== 0); // the default route overlaps everything and says nothing about local use
}

export function overlaps(a: Route, b: Route): boolean {
  const mask = (a.mask & b.mask) >>> 0;
  return (a.dest & mask) >>> 0 === (b.dest & mask) >>> 0;
}

export function networkFor(n: number, id: string): PrivateNetwork {
  return {
    number: n,
    bridge: `ccx-${n}`,
    subnet: `${PREFIX.join('.')}.${n}.0/24`,
    name: `cri-conform-isolated-${id}`,
  };
}

/** Picks and claims a free subnet number for `dir`, starting at a random one. */
export function claimNetwork(dir: string, id: string, claims = NETWORK_CLAIMS): PrivateNetwork {
  const taken = [...hostRoutes(), ...hostAddresses()];
  mkdirSync(claims, { recursive: true });
  const start = Math.floor(Math.random() * 250) + 1;
  for (let i = 0; i < 250; i++) {
    const n = ((start + i) % 250) + 1;
    const candidate: Route = { dest: ipv4(`${PREFIX.join('.')}.${n}.0`), mask: 0xffffff00 };
    if (taken.some((r) => overlaps(r, candidate))) continue;
    if (claimNumber(claims, n, dir)) return networkFor(n, id);
  }
  throw new Error(`no free 10.214.N.0/24 for a private bridge (claims in ${claims})`);
}

export function releaseNetwork(dir: string, n: number, claims = NETWORK_CLAIMS): void {
  const claim = join(claims, String(n));
  if (linkTarget(claim) === dir) rmSync(claim, { force: true });
}

/** The conflist: the slow wrapper around the bridge plugin, host-local IPAM kept in the instance's dir. */
export function writeConflist(confDir: string, ipamDir: string, net: PrivateNetwork): void {
  const conf = {
    cniVersion: '1.0.0',
    name: net.name,
    plugins: [
      {
        type: 'conform-bridge',
        bridge: net.bridge,
        isGateway: true,
        ipMasq: false,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: net.subnet }]],
          routes: [{ dst: '0.0.0.0/0' }],
          dataDir: ipamDir,
        },
      },
      { type: 'loopback' },
    ],
  };
  writeFileSync(join(confDir, '10-cri-conform-isolated.conflist'), `${JSON.stringify(conf, null, 2)}\n`);
}

/** A claim whose owner directory is gone belongs to a removed or killed instance and is taken over. */
function claimNumber(claims: string, n: number, dir: string): boolean {
  const claim = join(claims, String(n));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      symlinkSync(dir, claim);
      return true;
    } catch {
      const owner = linkTarget(claim);
      if (owner === dir) return true;
      if (owner === undefined || existsDir(owner)) return false;
      rmSync(claim, { force: true });
    }
  }
  return false;
}

function hostRoutes(): Route[] {
  try {
    return parseRoutes(readFileSync('/proc/net/route', 'utf8'));
  } catch {
    return [];
  }
}

function hostAddresses(): Route[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && a.family === 'IPv4')
    .map((a) => ({ dest: ipv4(a?.address ?? '0.0.0.0'), mask: ipv4(a?.netmask ?? '255.255.255.255') }));
}

function ipv4(text: string): number {
  return text.split('.').reduce((acc, part) => ((acc << 8) | Number(part)) >>> 0, 0);
}

function leHex(hex: string): number {
  const v = Number.parseInt(hex, 16);
  return (
    (((v & 0xff) << 24) | (((v >>> 8) & 0xff) << 16) | (((v >>> 16) & 0xff) << 8) | ((v >>> 24) & 0xff)) >>> 0
  );
}

function linkTarget(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

function existsDir(path: string): boolean {
  try {
    readFileSync(join(path, 'instance.json'));
    return true;
  } catch {
    return false;
  }
}
