/**
 * Which process serves the node's CRI socket: the one holding the listening socket's inode among its file
 * descriptors (the socket path -> inode in /proc/net/unix -> /proc/<pid>/fd). Only that process is ever
 * read; another daemon on the same machine is never mistaken for it, whatever its name.
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { readTextOrEmpty } from './read-text.js';

export interface NodeDaemon {
  pid: number;
  /** The binary as /proc/<pid>/exe names it. */
  binary: string;
  /**
   * What to run to get this daemon: the binary, or for an all-in-one binary (k3s) the link to it named
   * after the daemon, since it picks what to be by the name it is run as.
   */
  command: string;
  argv: string[];
  /** The config file its command line names (--config/-c), or undefined for the binary's default. */
  configArg?: string;
  /** PATH of the daemon's environment: where it finds its shims and runc. */
  path: string;
  /** Its whole environment: CRI-O takes settings from CONTAINER_* variables too. */
  environ: Record<string, string>;
  flavor: 'containerd' | 'crio';
}

/** SO_ACCEPTCON in the Flags column: a listening socket. */
const LISTENING_FLAG = 0x10000;

/** The inodes of listening unix sockets bound to `path`, from the text of /proc/net/unix. */
export function listeningInodes(procNetUnix: string, path: string): number[] {
  return listeningSockets(procNetUnix)
    .filter((s) => s.path === path)
    .map((s) => s.inode);
}

/** The listening unix sockets in the text of /proc/net/unix, with the paths they are bound to. */
function listeningSockets(procNetUnix: string): { path: string; inode: number }[] {
  const sockets: { path: string; inode: number }[] = [];
  for (const line of procNetUnix.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path
    const f = line.trim().split(/\s+/);
    if (f.length < 8 || (Number.parseInt(f[3] ?? '0', 16) & LISTENING_FLAG) === 0) continue;
    sockets.push({ path: f.slice(7).join(' '), inode: Number(f[6]) });
  }
  return sockets;
}

/** The config path in a containerd or CRI-O command line: --config X, --config=X, -c X, -config X. */
export function configArgOf(argv: readonly string[]): string | undefined {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] ?? '';
    const m = /^--?(?:config|c)=(.*)$/.exec(a);
    if (m) return m[1];
    if (/^--?(?:config|c)$/.test(a)) return argv[i + 1];
  }
  return undefined;
}

export function flavorOf(binary: string, argv: readonly string[]): NodeDaemon['flavor'] | undefined {
  const name = basename(binary.replace(/ \(deleted\)$/, ''));
  if (name === 'crio') return 'crio';
  if (name === 'containerd' || (name === 'k3s' && argv.includes('containerd'))) return 'containerd';
  return undefined;
}

/** Finds the daemon listening on the unix socket `socketPath`; throws a message that says what to do. */
export function findNodeDaemon(socketPath: string, procRoot = '/proc'): NodeDaemon {
  const path = realOrSelf(socketPath);
  const inodes = new Set(
    [`${procRoot}/self/net/unix`, `${procRoot}/1/net/unix`].flatMap((f) => listeningInodesIn(f, path)),
  );
  const pid = inodes.size > 0 ? holderOf(inodes, procRoot) : runtimeServingFile(path, procRoot);
  if (pid === undefined && inodes.size === 0) {
    throw new Error(
      `no process listens on ${path} (/proc/net/unix): is the runtime running at this endpoint?`,
    );
  }
  if (pid === undefined) {
    throw new Error(
      `no process of this pid namespace holds the socket ${path}: run cri-conform on the node as root`,
    );
  }
  const binary = readlinkSync(`${procRoot}/${pid}/exe`);
  if (binary.endsWith(' (deleted)')) {
    throw new Error(`the runtime's binary ${binary} was replaced on disk since it started: restart it first`);
  }
  const argv = readFileSync(`${procRoot}/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const flavor = flavorOf(binary, argv);
  if (flavor === undefined) {
    throw new Error(`the process serving ${path} is ${binary} (pid ${pid}), neither containerd nor CRI-O`);
  }
  const config = configArgOf(argv);
  const cwd = readlinkSync(`${procRoot}/${pid}/cwd`);
  const environ = environOf(pid, procRoot);
  const nodePath = environ.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
  return {
    pid,
    binary,
    command: commandOf(binary, argv, nodePath, `${procRoot}/${pid}/root`),
    argv,
    ...(config ? { configArg: isAbsolute(config) ? config : resolve(cwd, config) } : {}),
    path: nodePath,
    environ,
    flavor,
  };
}

/**
 * From a pod (its own network and mount namespaces, the host's pids), the socket's path names it where the
 * pod mounts it, not where the runtime bound it. The runtime is then the containerd or CRI-O process with
 * a listening socket whose path, opened through that process's root, is the very file `path` is.
 */
function runtimeServingFile(path: string, procRoot: string): number | undefined {
  let wanted: { dev: number; ino: number };
  try {
    wanted = statSync(path);
  } catch {
    return undefined;
  }
  for (const pid of pidsOf(procRoot)) {
    let binary: string;
    try {
      binary = readlinkSync(`${procRoot}/${pid}/exe`);
    } catch {
      continue;
    }
    const argv = readTextOrEmpty(`${procRoot}/${pid}/cmdline`).split('\0').filter(Boolean);
    if (flavorOf(binary, argv) === undefined) continue;
    const sockets = listeningSockets(readTextOrEmpty(`${procRoot}/${pid}/net/unix`));
    for (const bound of new Set(sockets.map((s) => s.path).filter((p) => p.startsWith('/')))) {
      try {
        const st = statSync(`${procRoot}/${pid}/root${bound}`);
        if (st.dev !== wanted.dev || st.ino !== wanted.ino) continue;
      } catch {
        continue;
      }
      const inodes = new Set(sockets.filter((s) => s.path === bound).map((s) => s.inode));
      if (holderOf(inodes, procRoot, [pid]) === pid) return pid;
    }
  }
  return undefined;
}

/**
 * The path that runs `binary` as the daemon it is. A plain containerd or crio binary is that. k3s runs
 * containerd as its all-in-one binary under the name "containerd" (a link in its data dir's bin, first on
 * its PATH): run by its own name it is the k3s CLI, so `config dump` and the copy go through that link.
 */
export function commandOf(binary: string, argv: readonly string[], path: string, nodeRoot: string): string {
  const name = basename(binary);
  if (name === 'containerd' || name === 'crio') return binary;
  const wanted = argv[0] ?? '';
  const candidates = [
    ...(isAbsolute(wanted)
      ? [wanted]
      : path
          .split(':')
          .filter(Boolean)
          .map((d) => `${d}/${wanted}`)),
    `${dirname(binary)}/containerd`,
  ];
  const same = (a: string, b: string) => {
    try {
      const x = statSync(`${nodeRoot}${a}`);
      const y = statSync(`${nodeRoot}${b}`);
      return x.dev === y.dev && x.ino === y.ino;
    } catch {
      return false;
    }
  };
  const found = candidates.find((c) => basename(c) === 'containerd' && same(c, binary));
  if (found === undefined)
    throw new Error(
      `the node's containerd runs inside the all-in-one binary ${binary} (k3s), and no "containerd" link to it is on its PATH or beside it, so its containerd cannot be run on its own: test the node itself in a maintenance window instead`,
    );
  return found;
}

function pidsOf(procRoot: string): number[] {
  return readdirSync(procRoot)
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .sort((a, b) => a - b);
}

function listeningInodesIn(file: string, path: string): number[] {
  return listeningInodes(readTextOrEmpty(file), path);
}

function holderOf(
  inodes: ReadonlySet<number>,
  procRoot: string,
  pids = pidsOf(procRoot),
): number | undefined {
  const wanted = new Set([...inodes].map((i) => `socket:[${i}]`));
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`${procRoot}/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      try {
        if (wanted.has(readlinkSync(`${procRoot}/${pid}/fd/${fd}`))) return pid;
      } catch {
        // the descriptor closed while we looked
      }
    }
  }
  return undefined;
}

function environOf(pid: number, procRoot: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const kv of readTextOrEmpty(`${procRoot}/${pid}/environ`).split('\0')) {
    const eq = kv.indexOf('=');
    if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return env;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
