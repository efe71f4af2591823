/**
 * Where the runtime writes the logs of a run's pods. The kubelet always sends a log directory per sandbox
 * and a log path per container (kuberuntime_sandbox.go, kuberuntime_container.go), and cri-conform does
 * too: a kubelet that later removes a container sent with an empty log path globs that empty path in its
 * own working directory and deletes what matches (kubernetes/kubernetes#107717). Every run's logs live in
 * one directory of its own, removed when the run ends (or by `cleanup` after a killed run).
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * As root on the node (the usual case, and the runtime's own view), on tmpfs under /run: a killed run's
 * leftovers are gone at the next boot at the latest. Otherwise the user's temp directory.
 */
/** Root's pod log root: the Sonobuoy plugin mounts the host's at the same path. */
export const POD_LOG_ROOT_AS_ROOT = '/run/cri-conform/pod-logs';
export const POD_LOG_ROOT =
  process.getuid?.() === 0 ? POD_LOG_ROOT_AS_ROOT : join(tmpdir(), 'cri-conform-pod-logs');

/** Run ids come from `newRunId()` or `--run-id`: whatever a user typed must never name another path. */
export function runLogDirectory(runId: string): string {
  return join(POD_LOG_ROOT, runId.replace(/[^A-Za-z0-9_-]/g, '_') || '_');
}

/** The kubelet's layout (BuildPodLogsDirectory): `<root>/<namespace>_<name>_<uid>`. */
export function podLogDirectory(runId: string, namespace: string, name: string, uid: string): string {
  return join(runLogDirectory(runId), `${namespace}_${name}_${uid}`);
}

/** The kubelet's layout (BuildContainerLogsPath), relative to the pod's log directory. */
export function containerLogPath(name: string, attempt: number): string {
  return `${name}/${attempt}.log`;
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
