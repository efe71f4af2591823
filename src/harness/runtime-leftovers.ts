/**
 * Containers the runtime itself still keeps for cri-conform runs although the CRI no longer lists them
 * (a runtime leak, e.g. a sandbox whose creation a plugin failed: TEAR-14). The CRI cannot remove what it
 * does not list, so these are reported with the commands that remove them, never silently left.
 */
import { RUN_LABEL } from './labels.js';

export interface RuntimeLeftover {
  id: string;
  runId: string;
}

/** Native containers labelled by a cri-conform run (this run only, when runId is given). */
export async function runtimeLeftovers(endpoint: string, runId?: string): Promise<RuntimeLeftover[]> {
  const { listContainerdRecords } = await import('../cri/containerd-native.js');
  const records = await listContainerdRecords(endpoint, { deadlineMs: 5_000 }).catch(() => undefined);
  return (records?.containers ?? [])
    .filter(
      (c) => c.labels[RUN_LABEL] !== undefined && (runId === undefined || c.labels[RUN_LABEL] === runId),
    )
    .map((c) => ({ id: c.id, runId: c.labels[RUN_LABEL] ?? '' }));
}

/** What is left and how to remove it with containerd's own CLI, in short lines: one per id, one per command. */
export function describeLeftovers(endpoint: string, leftovers: readonly RuntimeLeftover[]): string {
  const socket = endpoint.replace(/^unix:\/\//, '');
  const ctr = `ctr -a ${socket} -n k8s.io`;
  return [
    `the runtime still keeps ${leftovers.length} container(s) of cri-conform runs that the CRI no longer lists (a runtime leak):`,
    ...leftovers.map((l) => `  ${l.id}`),
    'Remove each with:',
    `  ${ctr} tasks kill -s SIGKILL <id>`,
    `  ${ctr} tasks rm -f <id>`,
    `  ${ctr} containers rm <id>`,
  ].join('\n');
}
