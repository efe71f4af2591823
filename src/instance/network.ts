/**
 * The private instance's pod network: a bridge of its own on a /24 that overlaps no route and no address
 * of the host, claimed so that two private instances never pick the same one, and a CNI conflist whose
 * bridge entry is the slow CNI wrapper (scripts/lib/cni-slow.sh) around the node's own bridge plugin.
 */
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { clashOf, formatPrefix, type Prefix, parsePrefix } from './taken-networks.js';

/** How every private instance's CNI network is named: this, then the instance's id (cni-files.ts). */
export const NETWORK_NAME_PREFIX = 'cri-conform-isolated-';

/** Claims of subnets: one symlink each, named by the subnet, pointing at the owning instance's directory. */
export const NETWORK_CLAIMS = '/run/cri-conform/isolated-networks';
/** 10.214.N.0/24; the throwaway instances of scripts/containerd-up.sh use 10.213. */
const PREFIX = [10, 214];

export interface PrivateNetwork {
  /** N of 10.214.N.0/24; 0 for a subnet the user named. */
  number: number;
  bridge: string;
  subnet: string;
  name: string;
  /** The claim's name in NETWORK_CLAIMS (absent in records of runs before --isolated-subnet: the number). */
  claim?: string;
}

/** A subnet the copy may take, before it is claimed. */
export interface SubnetCandidate {
  prefix: Prefix;
  number: number;
  claim: string;
  bridge: string;
}

/** Thrown when no subnet is free, or the one the user named is not: names what it overlaps. */
export class NoFreeSubnet extends Error {
  readonly code = 'ERR_NO_FREE_SUBNET';
  override readonly name = 'NoFreeSubnet';
}

/**
 * The subnets the copy may use, best first: the one the user named (--isolated-subnet), else every
 * 10.214.N.0/24 from a random N; none overlaps a taken prefix or another live instance's claim.
 */
export function freeSubnets(
  taken: readonly Prefix[],
  wanted?: string,
  claims = NETWORK_CLAIMS,
): SubnetCandidate[] {
  const claimed = liveClaims(claims);
  if (wanted !== undefined) {
    const problem = subnetProblem(wanted);
    if (problem) throw new NoFreeSubnet(problem);
    const prefix = parsePrefix(wanted) ?? { net: 0, len: 0, source: '' };
    const clash = clashOf(prefix, [...taken, ...claimed]);
    if (clash)
      throw new NoFreeSubnet(
        `--isolated-subnet ${wanted} overlaps ${clash.source}: name a subnet the node does not use`,
      );
    const key = formatPrefix(prefix).replace('/', '_');
    const bridge = `ccx-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
    return [{ prefix, number: 0, claim: key, bridge }];
  }
  const start = Math.floor(Math.random() * 250);
  const out: SubnetCandidate[] = [];
  for (let i = 0; i < 250; i++) {
    const n = ((start + i) % 250) + 1;
    const prefix: Prefix = { net: ipv4(`${PREFIX.join('.')}.${n}.0`), len: 24, source: '' };
    if (clashOf(prefix, [...taken, ...claimed]) === undefined)
      out.push({ prefix, number: n, claim: String(n), bridge: `ccx-${n}` });
  }
  if (out.length === 0)
    throw new NoFreeSubnet(
      `no 10.214.N.0/24 is free on this node (routes, rules, addresses, resolvers, peers, other instances): name one with --isolated-subnet`,
    );
  return out;
}

/** Claims the first candidate no other instance took meanwhile, for `dir`. */
export function claimNetwork(
  dir: string,
  id: string,
  candidates: readonly SubnetCandidate[],
  claims = NETWORK_CLAIMS,
): PrivateNetwork {
  mkdirSync(claims, { recursive: true, mode: 0o700 });
  for (const c of candidates) {
    if (claimName(claims, c.claim, dir))
      return {
        number: c.number,
        bridge: c.bridge,
        subnet: formatPrefix(c.prefix),
        name: `${NETWORK_NAME_PREFIX}${id}`,
        claim: c.claim,
      };
  }
  throw new NoFreeSubnet(
    `every free subnet was claimed by another private instance meanwhile (claims in ${claims})`,
  );
}

export function releaseNetwork(
  dir: string,
  network: Pick<PrivateNetwork, 'number' | 'claim'>,
  claims = NETWORK_CLAIMS,
): void {
  const claim = join(claims, network.claim ?? String(network.number));
  if (linkTarget(claim) === dir) rmSync(claim, { force: true });
}

/** Why `text` cannot be the private bridge's subnet, or undefined when it can. */
export function subnetProblem(text: string): string | undefined {
  const prefix = parsePrefix(text);
  const hostBits = prefix === undefined ? 0 : (prefix.net & ~maskOf(prefix.len)) >>> 0;
  if (prefix === undefined || !text.includes('/') || prefix.len < 8 || prefix.len > 28 || hostBits !== 0)
    return `--isolated-subnet ${text} is not an IPv4 subnet of /8 to /28 in network form (e.g. 192.168.77.0/24)`;
  return undefined;
}

/** The subnets of claims whose instance still exists. */
function liveClaims(claims: string): Prefix[] {
  let names: string[] = [];
  try {
    names = readdirSync(claims);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const owner = linkTarget(join(claims, name));
    if (owner === undefined || !existsDir(owner)) return [];
    const text = /^\d+$/.test(name) ? `${PREFIX.join('.')}.${name}.0/24` : name.replace('_', '/');
    const p = parsePrefix(text, `the subnet of the private instance ${owner}`);
    return p ? [p] : [];
  });
}

/**
 * The conflist: the slow wrapper around the bridge plugin, host-local IPAM kept in the instance's dir. No
 * loopback entry: containerd (its own cni-loopback network) and CRI-O (ocicni) bring a pod's lo up
 * themselves, so one here would run the loopback plugin a second time on every ADD and DEL.
 */
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
    ],
  };
  writeFileSync(join(confDir, '10-cri-conform-isolated.conflist'), `${JSON.stringify(conf, null, 2)}\n`);
}

/** A claim whose owner directory is gone belongs to a removed or killed instance and is taken over. */
function claimName(claims: string, name: string, dir: string): boolean {
  const claim = join(claims, name);
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

function maskOf(len: number): number {
  return len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
}

function ipv4(text: string): number {
  return text.split('.').reduce((acc, part) => ((acc << 8) | Number(part)) >>> 0, 0);
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
