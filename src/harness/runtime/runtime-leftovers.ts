/**
 * Containers the runtime itself still keeps for cri-conform runs although the CRI no longer lists them
 * (a runtime leak, e.g. a sandbox whose creation a plugin failed: TEAR-14 on containerd 2.1). The CRI cannot
 * remove what it does not list, so these are reported with the commands that remove them, never silently
 * left, and `cleanup --native` removes them through containerd's own API.
 */
import { errorMessage } from '../core/errors.js';
import { hasOurMarks, RUN_LABEL } from '../core/labels.js';
import { notYet, poll } from '../core/waits.js';
import { readContainerdRecords } from './containerd-records.js';

export interface RuntimeLeftover {
  id: string;
  runId: string;
  /** The pid of the container's task while it has one. */
  taskPid?: number;
}

/**
 * Native containers with every mark of a cri-conform run (this run only, when runId is given), leaving out
 * the ids the CRI still lists (those are the CRI's to remove). Rejects with RecordsUnreadError when
 * containerd never answered: "none left" would be a guess.
 */
export async function runtimeLeftovers(
  endpoint: string,
  runId?: string,
  criListed: ReadonlySet<string> = new Set(),
): Promise<RuntimeLeftover[]> {
  const records = await readContainerdRecords(endpoint);
  // A task's init process: containerd 1.7 leaves its exec id empty, 2.x sets it to the container id.
  const pids = new Map((records?.tasks ?? []).map((t) => [t.containerId, t.pid]));
  return (records?.containers ?? [])
    .filter((c) => hasOurMarks(c.labels, runId))
    .filter((c) => !criListed.has(c.id))
    .map((c) => {
      const taskPid = pids.get(c.id);
      return { id: c.id, runId: c.labels[RUN_LABEL] ?? '', ...(taskPid === undefined ? {} : { taskPid }) };
    });
}

/** What is left and how to remove it, in short lines: one per id, one per command. */
export function describeLeftovers(
  endpoint: string,
  leftovers: readonly RuntimeLeftover[],
  { goes = false }: { goes?: boolean } = {},
): string {
  const socket = endpoint.replace(/^unix:\/\//, '');
  const ctr = `ctr -a ${socket} -n k8s.io`;
  const found = [
    `the runtime still keeps ${leftovers.length} container(s) of cri-conform runs that the CRI no longer lists (a runtime leak):`,
    ...leftovers.map((l) => `  ${l.id}`),
  ];
  // A private instance is removed with the run that made it: no command could reach its socket later.
  if (goes) return [...found, 'They go with the private instance, which the run removes now.'].join('\n');
  return [
    ...found,
    'Remove them with: cri-conform cleanup --native',
    'or each with:',
    `  ${ctr} tasks kill -s SIGKILL <id>`,
    `  ${ctr} tasks rm -f <id>`,
    `  ${ctr} containers rm <id>`,
  ].join('\n');
}

export interface NativeRemoval {
  removed: RuntimeLeftover[];
  problems: string[];
}

/**
 * Removes leftovers through containerd's API the way `ctr` does: SIGKILL the task's processes, wait for the
 * task to stop, delete the task, delete the container. NOT_FOUND on any step means it is already gone.
 */
export async function removeRuntimeLeftovers(
  endpoint: string,
  leftovers: readonly RuntimeLeftover[],
  opts: { withinMs: number; signal?: AbortSignal },
): Promise<NativeRemoval> {
  const { ContainerdSession, ContainerdNativeError } = await import('../../cri/containerd-native.js');
  const NOT_FOUND = 5;
  const ignoreGone = (e: unknown) => {
    if (!(e instanceof ContainerdNativeError && e.status === NOT_FOUND)) throw e;
  };
  const signal = opts.signal ? { signal: opts.signal } : {};
  const session = new ContainerdSession(endpoint);
  const result: NativeRemoval = { removed: [], problems: [] };
  try {
    for (const leftover of leftovers) {
      try {
        if (leftover.taskPid !== undefined) {
          await session.killTask(leftover.id).catch(ignoreGone);
          // Tasks/List names only init processes, by their container's id on every containerd version.
          await poll(
            async () => {
              const task = (await session.list())?.tasks.find((t) => t.containerId === leftover.id);
              return task === undefined || task.status === 'STOPPED' || notYet(`task ${task.status}`);
            },
            {
              withinMs: opts.withinMs,
              what: `containerd task ${leftover.id} to stop after SIGKILL`,
              ...signal,
            },
          );
          // A shim exits once its last task has stopped; a delete that reached it as it went away fails with
          // "ttrpc: closed", and the next one finds the task gone or deletes it through containerd itself.
          await poll(
            async () => {
              try {
                await session.deleteTask(leftover.id).catch(ignoreGone);
                return true;
              } catch (e) {
                if (e instanceof ContainerdNativeError && /ttrpc: closed/.test(e.details))
                  return notYet(`delete failed: ${e.details}`);
                throw e;
              }
            },
            { withinMs: opts.withinMs, what: `containerd to delete task ${leftover.id}`, ...signal },
          );
        }
        await session.deleteContainer(leftover.id).catch(ignoreGone);
        result.removed.push(leftover);
      } catch (e) {
        result.problems.push(`${leftover.id}: ${errorMessage(e)}`);
      }
    }
  } finally {
    session.close();
  }
  return result;
}
