/**
 * What containerd's runc shim keeps of a container besides its mounts, and removes only as it ends: the
 * bundle at <containerd state>/io.containerd.runtime.v2.task/<namespace>/<id> (config.json, options.json,
 * log, address, the rootfs mount point, a `work` link to the shim's work dir in containerd's root, which
 * goes with it) and runc's state at <runc root>/<namespace>/<id> (state.json), the
 * root being options.json's `root` (Go's encoding/json of the runc options, so snake_case keys) or
 * /run/containerd/runc. A shim killed as a lost process (lost-processes.ts) ends without removing either,
 * and containerd has forgotten the id, so nothing ever will. `cleanup` removes those of the tool's own ids
 * the runtime lost, as it unmounts their mounts (lost-mounts.ts), once no process and no mount names the
 * id. CRI-O is not looked at: conmon's state lives under its runtime_root by id alone, with no namespace,
 * and telling it lost needs CRI-O's own view of the id, which recordedIds cannot give.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { basename, dirname, join, posix } from 'node:path';
import type { CriClient } from '../../cri/client.js';
import { errorMessage } from '../core/errors.js';
import { isFullId } from '../core/own-ids.js';
import { type NodeView, ON_NODE } from '../host/node-view.js';
import { livingProcessesOf, mountsMentioning, namesId } from '../host/proc.js';
import type { NodeHostProbe } from './host-probe.js';

/** Where the runc shim puts runc's state when its options name no root (process.RuncRoot). */
export const DEFAULT_RUNC_ROOT = '/run/containerd/runc';
const TASK_DIR = 'io.containerd.runtime.v2.task';
/** The CRI plugin's state dir, which its verbose Status names; containerd's own state dir is its parent. */
const CRI_STATE_DIR = 'io.containerd.grpc.v1.cri';
const STATUS_DEADLINE_MS = 5_000;

export interface RuntimeStateRoots {
  /** containerd's task state dirs (<state>/io.containerd.runtime.v2.task); none when nothing named one. */
  taskDirs: readonly string[];
  /** runc's root for a bundle whose options.json names none. */
  runcRoot: string;
  /**
   * Why the runtime could not say where its bundles are, when it may have some: its verbose Status failed.
   * One that answers without a CRI stateDir is no containerd (whose CRI plugin always names it).
   */
  unknownWhy?: string;
}

/** A directory of runtime state, a node path ending in /<id>. */
export interface RuntimeStateDir {
  dir: string;
  id: string;
  kind: 'bundle' | 'runc' | 'work';
}

export interface LostRuntimeState {
  removed: string[];
  /** What stays of ids the runtime lost, each with why. */
  problems: string[];
  /** The ids whose state stays (lost or still recorded), for the next cleanup. */
  leftIds: string[];
}

/**
 * containerd's task state dirs: the parent of the CRI plugin's stateDir in its verbose Status config, and
 * the dir any container's rootfs mount point sits below. Either may be missing (Status failed, nothing
 * mounted); with neither, where bundles live is not guessed.
 */
export function taskDirsOf(statusConfig: string | undefined, mountPoints: readonly string[]): string[] {
  const dirs: string[] = [];
  const stateDir = parseObject(statusConfig)?.stateDir;
  if (typeof stateDir === 'string' && posix.basename(stateDir) === CRI_STATE_DIR)
    dirs.push(posix.join(posix.dirname(stateDir), TASK_DIR));
  for (const m of mountPoints) {
    const at = m.lastIndexOf(`/${TASK_DIR}/`);
    const below = at < 0 ? [] : m.slice(at + TASK_DIR.length + 2).split('/');
    if (below.length === 3 && below[2] === 'rootfs')
      dirs.push(posix.normalize(m.slice(0, at + TASK_DIR.length + 1)));
  }
  return [...new Set(dirs)];
}

/** The roots on the node of `client`'s runtime, from its verbose Status and the node's mounts. */
export async function learnStateRoots(
  client: CriClient,
  mountPoints: readonly string[] = [],
  view: NodeView = ON_NODE,
): Promise<RuntimeStateRoots> {
  let unknownWhy: string | undefined;
  const config = await client
    .call('Status', { verbose: true }, { deadlineMs: STATUS_DEADLINE_MS })
    .then((s) => s.info.config)
    .catch((e: unknown) => {
      unknownWhy = `its verbose Status failed (${errorMessage(e)}) and no container rootfs is mounted below one`;
      return undefined;
    });
  const mounted = view
    .mountinfo()
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '');
  const taskDirs = taskDirsOf(config, [...mountPoints, ...mounted]);
  return {
    taskDirs,
    runcRoot: DEFAULT_RUNC_ROOT,
    ...(taskDirs.length === 0 && unknownWhy ? { unknownWhy } : {}),
  };
}

/**
 * The bundles and runc state dirs that name one of `ids`, in every namespace. runc's dir is looked for at
 * the root each bundle's options.json names, and at the default root: a bundle may be gone already.
 * A bundle whose options.json cannot be read is a problem: runc's state could be anywhere.
 */
export function runtimeStateOf(
  ids: readonly string[],
  roots: RuntimeStateRoots,
  view: NodeView = ON_NODE,
): { found: RuntimeStateDir[]; unread: (RuntimeStateDir & { why: string })[] } {
  const found = new Map<string, RuntimeStateDir>();
  const unread: (RuntimeStateDir & { why: string })[] = [];
  const add = (dir: string, id: string, kind: RuntimeStateDir['kind']) => {
    if (isRealDir(dir, view) && !found.has(dir)) found.set(dir, { dir, id, kind });
  };
  for (const taskDir of roots.taskDirs)
    for (const ns of realSubdirs(taskDir, view))
      for (const id of ids) {
        const bundle = posix.join(taskDir, ns, id);
        if (!isRealDir(bundle, view)) continue;
        const root = runcRootOf(bundle, view);
        if (root instanceof Error) unread.push({ dir: bundle, id, kind: 'bundle', why: root.message });
        else add(posix.join(root ?? roots.runcRoot, ns, id), id, 'runc');
        const work = workDirOf(bundle, ns, id, view);
        if (work) add(work, id, 'work');
        add(bundle, id, 'bundle');
      }
  for (const ns of realSubdirs(roots.runcRoot, view))
    for (const id of ids) add(posix.join(roots.runcRoot, ns, id), id, 'runc');
  // The bundle goes last: its options.json names runc's root, and its link the work dir.
  const order = { runc: 0, work: 1, bundle: 2 } as const;
  const bundleLast = [...found.values()].sort((a, b) => order[a.kind] - order[b.kind]);
  return { found: bundleLast, unread };
}

/**
 * Removes the bundles and runc state of the probe's own ids that neither the CRI (ids in `listed`) nor
 * the runtime's records know any more, and that no living process or mount names.
 */
export async function removeLostRuntimeState(
  listed: ReadonlySet<string>,
  probe: Pick<NodeHostProbe, 'ownIds' | 'recordedIds'>,
  roots: RuntimeStateRoots,
  opts: { view?: NodeView; namedByProcess?: (ids: readonly string[]) => string[] } = {},
): Promise<LostRuntimeState> {
  const { view = ON_NODE, namedByProcess = idsNamedByProcesses } = opts;
  const own = new Set(probe.ownIds.all().filter(isFullId));
  const ids = [...own].filter((id) => !listed.has(id));
  if (ids.length === 0) return { removed: [], problems: [], leftIds: [] };
  const { found, unread } = runtimeStateOf(ids, roots, view);
  const problems = unread.map((d) => `${d.dir} (${d.why})`);
  const unsearched = roots.taskDirs.length === 0 ? roots.unknownWhy : undefined;
  if (found.length === 0 && unread.length === 0 && !unsearched)
    return { removed: [], problems: [], leftIds: [] };
  const known = await probe.recordedIds();
  const idsOf = (dirs: readonly RuntimeStateDir[]) => [...new Set(dirs.map((d) => d.id))];
  // Without records a lost id cannot be told from one the runtime holds. With nothing found, that is
  // CRI-O's case (no such dirs) or records the stray stop has already said it could not read.
  if ('cannotTell' in known)
    return {
      removed: [],
      problems: [...problems, ...found.map((d) => `${d.dir} (${known.cannotTell})`)],
      leftIds: idsOf([...found, ...unread]),
    };
  const lost = ids.filter((id) => !known.has(id));
  // Those the runtime still records are its own to remove; those of an unreadable options.json stay whole.
  const held = new Set([...idsOf(found).filter((id) => known.has(id)), ...idsOf(unread)]);
  const left = new Set(held);
  if (unsearched && lost.length > 0) {
    problems.push(
      `the shim bundle of each of ${lost.length} lost ids, if any (where containerd keeps them is unknown: ${unsearched})`,
    );
    for (const id of lost) left.add(id);
  }
  const candidates = found.filter((d) => lost.includes(d.id) && !held.has(d.id));
  const named = new Set(candidates.length === 0 ? [] : namedByProcess(idsOf(candidates)));
  const mountinfo = candidates.length === 0 ? '' : view.mountinfo();
  const failed = new Set<string>();
  const whyKept = (d: RuntimeStateDir) => {
    // runc's dir comes first: a bundle stays with it, so that its options.json still names runc's root.
    if (failed.has(d.id)) return 'kept with the rest of its id';
    if (named.has(d.id)) return 'a living process still names its id';
    const mounts = mountsMentioning(mountinfo, [d.id]);
    return mounts.length > 0 ? `still mounted: ${mounts.join(', ')}` : removeOwnDir(d, own, view);
  };
  const removed: string[] = [];
  for (const d of candidates) {
    const why = whyKept(d);
    if (why === undefined) removed.push(d.dir);
    else {
      problems.push(`${d.dir} (${why})`);
      failed.add(d.id);
      left.add(d.id);
    }
  }
  return { removed, problems, leftIds: [...left] };
}

/** Undefined once removed; otherwise why not. */
function removeOwnDir(d: RuntimeStateDir, own: ReadonlySet<string>, view: NodeView): string | undefined {
  // Only a path the tool's own id names, as a directory of its own: a link there could lead anywhere.
  if (!isFullId(d.id) || !own.has(d.id) || posix.basename(d.dir) !== d.id) return 'not named by an own id';
  if (!isRealDir(d.dir, view)) return 'no longer a directory of its own';
  try {
    // Recursion unlinks links inside (the bundle's `work` link into containerd's root) without following.
    rmSync(localPath(d.dir, view), { recursive: true });
    return undefined;
  } catch (e) {
    return errorMessage(e);
  }
}

/**
 * The runc root a bundle's options.json names; undefined when it names none (or there is no file: the
 * shim was killed before it wrote one, so runc never ran with another root). Go decodes JSON keys without
 * regard to case, so the shim reads `Root` as `root`, and so does this.
 */
function runcRootOf(bundle: string, view: NodeView): string | undefined | Error {
  let text: string;
  try {
    text = readFileSync(join(localPath(bundle, view), 'options.json'), 'utf8');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT'
      ? undefined
      : new Error(`options.json: ${errorMessage(e)}`);
  }
  const options = parseObject(text);
  if (!options)
    return new Error('options.json is not a JSON object, so where runc keeps its state is unknown');
  const root = Object.entries(options).find(([k]) => k.toLowerCase() === 'root')?.[1];
  if (root === undefined || root === '') return undefined;
  return typeof root === 'string' && root.startsWith('/')
    ? root
    : new Error(`options.json names runc root ${JSON.stringify(root)}, not an absolute path`);
}

/**
 * The shim's work dir, in containerd's root (<root>/io.containerd.runtime.v2.task/<ns>/<id>), that the
 * bundle's `work` link names: the shim removes it with the bundle, so a killed one leaves it too. Only a
 * target the id and namespace name, below a task dir, counts.
 */
function workDirOf(bundle: string, ns: string, id: string, view: NodeView): string | undefined {
  let target: string;
  try {
    target = readlinkSync(join(localPath(bundle, view), 'work'));
  } catch {
    return undefined;
  }
  const normal = posix.normalize(target);
  return normal.startsWith('/') && normal.endsWith(`/${TASK_DIR}/${ns}/${id}`) && normal !== bundle
    ? normal
    : undefined;
}

function idsNamedByProcesses(ids: readonly string[]): string[] {
  const procs = livingProcessesOf(ids);
  return ids.filter((id) => procs.some((p) => namesId(p, id)));
}

/** Where this process opens a node path, with the last part never resolved: a link there is not followed. */
function localPath(nodePath: string, view: NodeView): string {
  return join(view.path(dirname(nodePath)), basename(nodePath));
}

function isRealDir(nodePath: string, view: NodeView): boolean {
  try {
    return lstatSync(localPath(nodePath, view)).isDirectory();
  } catch {
    return false;
  }
}

function realSubdirs(nodePath: string, view: NodeView): string[] {
  try {
    return readdirSync(view.path(nodePath), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
}

function parseObject(text: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = text === undefined ? undefined : JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
