/**
 * Where the runtime writes the logs of a run's pods. The kubelet always sends a log directory per sandbox
 * and a log path per container (kuberuntime_sandbox.go, kuberuntime_container.go), and cri-conform does
 * too: a kubelet that later removes a container sent with an empty log path globs that empty path in its
 * own working directory and deletes what matches (kubernetes/kubernetes#107717). Every run's logs live in
 * one directory of its own, made before its first pod with a file naming the run's process, removed when
 * the run ends, or by `cleanup` once that process is gone.
 */
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type IdsFile, idsFileHeader, readIdsFile } from '../core/own-ids.js';
import { sameRuntime } from '../core/socket-identity.js';
import { currentOwner, ownerGone, type ProcessView, parseOwner, type RunOwner } from './run-owner.js';

/**
 * As root on the node (the usual case, and the runtime's own view), on tmpfs under /run: a killed run's
 * leftovers are gone at the next boot at the latest. Otherwise the user's temp directory.
 */
/** Root's pod log root: the Sonobuoy plugin mounts the host's at the same path. */
export const POD_LOG_ROOT_AS_ROOT = '/run/cri-conform/pod-logs';
export const POD_LOG_ROOT =
  process.getuid?.() === 0 ? POD_LOG_ROOT_AS_ROOT : join(tmpdir(), 'cri-conform-pod-logs');

/** Run ids come from `newRunId()` or `--run-id`: whatever a user typed must never name another path. */
export function runFileName(runId: string): string {
  return runId.replace(/[^A-Za-z0-9_-]/g, '_') || '_';
}

export function runLogDirectory(runId: string): string {
  return join(POD_LOG_ROOT, runFileName(runId));
}

/** The kubelet's layout (BuildPodLogsDirectory): `<root>/<namespace>_<name>_<uid>`. */
export function podLogDirectory(runId: string, namespace: string, name: string, uid: string): string {
  return join(runLogDirectory(runId), `${namespace}_${name}_${uid}`);
}

/** The kubelet's layout (BuildContainerLogsPath), relative to the pod's log directory. */
export function containerLogPath(name: string, attempt: number): string {
  return `${name}/${attempt}.log`;
}

/** In a run's log directory, beside its pods' (`<namespace>_<name>_<uid>`): who made it (run-owner.ts). */
export const RUN_OWNER_FILE = 'cri-conform-run.json';

/** In a run's log directory: the ids of its own objects, one a line, as the run learns them (OwnIds). */
export const OWN_IDS_FILE = 'cri-conform-own-ids';

/**
 * Appends one id to the run's own-ids file, which first names the endpoint they are ids of; a failure to
 * write costs only what `cleanup` can stop later.
 */
export function ownIdsRecorder(runId: string, endpoint: string): (id: string) => void {
  const file = join(runLogDirectory(runId), OWN_IDS_FILE);
  const append = (text: string) => {
    try {
      appendFileSync(file, text);
    } catch {
      // The run's own final sweep still stops what it learnt.
    }
  };
  append(idsFileHeader(endpoint));
  return (id) => append(`${id}\n`);
}

/**
 * The ids recorded by runs whose process is gone (their log directories are removed after this), by run
 * (its folder's name), with the endpoint they are of; of one run only with `runId`.
 */
export function deadRunsOwnIds(
  runId?: string,
  root = POD_LOG_ROOT,
  view?: ProcessView,
): Map<string, IdsFile> {
  const dead = new Map<string, IdsFile>();
  for (const { name, dir } of deadRunFolders(root, view)) {
    if (runId !== undefined && name !== runFileName(runId)) continue;
    try {
      const file = readIdsFile(readFileSync(join(dir, OWN_IDS_FILE), 'utf8'));
      if (file.ids.length > 0) dead.set(name, file);
    } catch {
      // A run killed before it learnt an id.
    }
  }
  return dead;
}

/** Which runtime a run tests, and since when (ms since the epoch); `by` is 'doctor' for a doctor's look. */
export interface RuntimeClaim {
  endpoint: string;
  claimedAt: number;
  by?: 'doctor';
}

/** The folders of runs whose process is known to be gone. */
export function deadRunFolders(root = POD_LOG_ROOT, view?: ProcessView): RunFolder[] {
  return runFolders(root).filter((f) => isDead(f, view));
}

/** The folder's run has ended: its owner is gone, or it has no owner file and is no run's in the making. */
function isDead(f: RunFolder, view: ProcessView | undefined): boolean {
  return f.owner === undefined ? !beingMade(f.dir) : ownerGone(f.owner, view);
}

/**
 * Makes the run's log directory and its owner file, with the runtime it claims when it is a run; before
 * the run's first pod, so no folder lacks one.
 */
export function claimRunLogs(runId: string, owner: RunOwner = currentOwner(), runtime?: RuntimeClaim): void {
  const dir = runLogDirectory(runId);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, RUN_OWNER_FILE), `${JSON.stringify({ ...owner, ...runtime })}\n`);
}

export interface DeadRunLogs {
  removed: string[];
  /** Folders with no owner file that a run may be making right now (empty and new): kept. */
  unowned: string[];
  problems: string[];
}

/** Removes the log directories of runs whose process is gone, but those of `keep` (file names); those of running runs stay. */
export function removeDeadRunLogs(
  root = POD_LOG_ROOT,
  view?: ProcessView,
  keep: ReadonlySet<string> = new Set(),
): DeadRunLogs {
  const found: DeadRunLogs = { removed: [], unowned: [], problems: [] };
  for (const folder of runFolders(root)) {
    const { name, dir } = folder;
    if (keep.has(name)) continue;
    if (!isDead(folder, view)) {
      if (folder.owner === undefined) found.unowned.push(dir);
    } else {
      try {
        rmSync(dir, { recursive: true, force: true });
        found.removed.push(dir);
      } catch (e) {
        found.problems.push(`pod logs ${dir}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
  return found;
}

/**
 * Runs of the tool by another process than this one that still run (or cannot be told gone) and may use
 * the injectors of the runtime at `endpoint`, which a run or doctor must leave alone: those on it, and
 * those that name no runtime (a folder being made, a doctor's proof, a version before claims). A run on
 * another runtime has injectors of its own.
 */
export function runsOfOtherProcessesOn(endpoint: string, root = POD_LOG_ROOT, view?: ProcessView): string[] {
  return liveFoldersOfOtherProcesses(root, view)
    .filter((f) => f.runtime === undefined || sameRuntime({ endpoint: f.runtime.endpoint }, endpoint))
    .map(({ name }) => name);
}

/** The live run folders of other processes, with what their owner files say. */
export function liveFoldersOfOtherProcesses(root = POD_LOG_ROOT, view?: ProcessView): RunFolder[] {
  const me = currentOwner();
  return liveFolders(
    root,
    view,
    ({ owner }) =>
      owner?.pid === me.pid && owner.startTime === me.startTime && owner.pidNamespace === me.pidNamespace,
  );
}

/** Runs of the tool on this node other than `runId` whose process still runs (or cannot be told gone). */
export function otherLiveRuns(runId: string, root = POD_LOG_ROOT, view?: ProcessView): string[] {
  const own = runLogDirectory(runId);
  return liveRuns(root, view, ({ dir }) => dir === own);
}

/**
 * Whether the run's process still runs, or cannot be told gone (its folder has no owner file yet): what
 * such a run made is its own to remove, not `cleanup`'s.
 */
export function runStillRunning(runId: string, root = POD_LOG_ROOT, view?: ProcessView): boolean {
  const name = runFileName(runId);
  return liveFolders(root, view, (f) => f.name !== name).length > 0;
}

/** The names of the run folders whose process still runs, but those `excluded` says are the caller's own. */
function liveRuns(
  root: string,
  view: ProcessView | undefined,
  excluded: (folder: RunFolder) => boolean,
): string[] {
  return liveFolders(root, view, excluded).map(({ name }) => name);
}

function liveFolders(
  root: string,
  view: ProcessView | undefined,
  excluded: (folder: RunFolder) => boolean,
): RunFolder[] {
  return runFolders(root).filter((f) => !excluded(f) && !isDead(f, view));
}

/** How long a run takes from making its folder to writing its owner file there, at most. */
const OWNER_FILE_WITHIN_MS = 60_000;

/**
 * A folder without an owner file may be a run making it right now, which writes the file at once: while it
 * is empty and new, it counts as running. One that holds anything does not: a run writes its owner file
 * before its first pod, so such a folder is what a run left once it had removed its own (containerd
 * recreated a pod's log folder in it as it restarted), or one a version before owner files made.
 */
function beingMade(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0 && Date.now() - statSync(dir).mtimeMs < OWNER_FILE_WITHIN_MS;
  } catch {
    return false;
  }
}

export interface RunFolder {
  name: string;
  dir: string;
  owner: RunOwner | undefined;
  /** The runtime the run (or doctor) claimed; undefined for a proof's folder and runs of versions before claims. */
  runtime: RuntimeClaim | undefined;
}

/**
 * Every run folder under the root, with its owner file (undefined when it has none); none before the first
 * run made the root.
 */
function runFolders(root: string): RunFolder[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names.map((name) => {
    const dir = join(root, name);
    const text = readOwnerFile(dir) ?? '';
    return { name, dir, owner: parseOwner(text), runtime: parseRuntimeClaim(text) };
  });
}

function readOwnerFile(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, RUN_OWNER_FILE), 'utf8');
  } catch {
    return undefined;
  }
}

function parseRuntimeClaim(text: string): RuntimeClaim | undefined {
  try {
    const { endpoint, claimedAt, by } = JSON.parse(text) as Partial<RuntimeClaim>;
    if (typeof endpoint !== 'string' || typeof claimedAt !== 'number') return undefined;
    return { endpoint, claimedAt, ...(by === 'doctor' ? { by } : {}) };
  } catch {
    return undefined;
  }
}

/** Removes a run's log directory; the problem as text when it could not (never throws). */
export function removeRunLogs(runId: string): string | undefined {
  try {
    rmSync(runLogDirectory(runId), { recursive: true, force: true });
    return undefined;
  } catch (e) {
    return `pod logs ${runLogDirectory(runId)}: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/**
 * Why a request the tool is about to send lacks a log directory or log path the kubelet would have sent,
 * or undefined. The tracked CRI refuses such a request: it is a bug of the tool, never of the runtime.
 */
export function missingLogPath(method: string, request: unknown): string | undefined {
  const r = request as { config?: { logDirectory?: string; logPath?: string } } | null;
  if (method === 'RunPodSandbox' && !r?.config?.logDirectory) return 'RunPodSandbox without a log directory';
  if (method === 'CreateContainer' && !r?.config?.logPath) return 'CreateContainer without a log path';
  return undefined;
}

/**
 * Makes the directory of a container's log file before CreateContainer, as the kubelet does
 * (kuberuntime_container.go, MkdirAll of the container's log dir): containerd would make a missing one
 * itself, CRI-O's conmon does not, and the create fails with "Failed to open log file".
 */
export function makeContainerLogDir(method: string, request: unknown): void {
  if (method !== 'CreateContainer') return;
  const r = request as { config?: { logPath?: string }; sandboxConfig?: { logDirectory?: string } } | null;
  const podDir = r?.sandboxConfig?.logDirectory;
  const logPath = r?.config?.logPath;
  if (!podDir || !logPath) return;
  mkdirSync(dirname(join(podDir, logPath)), { recursive: true, mode: 0o755 });
}
