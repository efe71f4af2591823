/**
 * A tiny client for containerd's own API on the CRI socket: the containers and tasks containerd keeps in
 * its k8s.io namespace. Host probes use it to find records the CRI no longer shows (a leaked task after a
 * "successful" RemoveContainer), and `cleanup --native` to remove them. Runtimes other than containerd
 * answer UNIMPLEMENTED: that is `undefined`.
 */
import { status as Status } from '@grpc/grpc-js';
import { ContainerdConnection, methodTable } from './containerd-api.js';

export { CONTAINERD_K8S_NAMESPACE, ContainerdNativeError } from './containerd-api.js';

/** Linux SIGKILL, as Tasks.Kill takes it. */
const SIGKILL = 9;

export interface NativeContainer {
  id: string;
  labels: Record<string, string>;
  image: string;
  /** The sandbox id (containerd 2.x sets it; empty on 1.7). */
  sandbox: string;
}

export interface NativeTask {
  containerId: string;
  /** What Tasks/List names the task by: the container id (it lists init processes only). */
  id: string;
  pid: number;
  /** 'RUNNING', 'STOPPED', ... as containerd names them. */
  status: string;
}

export interface NativeRecords {
  containers: NativeContainer[];
  tasks: NativeTask[];
}

const methods = methodTable(
  ['containerd-containers.proto', 'containerd-tasks.proto'],
  ['containerd.services.containers.v1.Containers', 'containerd.services.tasks.v1.Tasks'],
);

/** One connection to containerd's API in one namespace. */
export class ContainerdSession {
  private readonly connection: ContainerdConnection;

  constructor(
    endpoint: string,
    private readonly opts: { namespace?: string; deadlineMs?: number } = {},
  ) {
    this.connection = new ContainerdConnection(endpoint, methods, opts.namespace);
  }

  /** Both lists, or undefined when the endpoint does not serve containerd's API. */
  async list(): Promise<NativeRecords | undefined> {
    const containers = await this.containers();
    const tasks = await this.tasks();
    return containers && tasks ? { containers, tasks } : undefined;
  }

  /** The tasks alone (Tasks/List asks every shim), or undefined when the endpoint is not containerd. */
  async tasks(): Promise<NativeTask[] | undefined> {
    const t = await this.call<{ tasks: NativeTask[] }>('Tasks/List', { filter: '' });
    // Tasks/List leaves container_id empty and names the task by its container's id.
    return t?.tasks.map(({ containerId, id, pid, status }) => ({
      containerId: containerId || id,
      id,
      pid,
      status,
    }));
  }

  /**
   * The containers alone, or undefined when the endpoint does not serve containerd's API. They come from
   * containerd's database, where Tasks/List asks every shim: the cheap look for whether any is left.
   */
  async containers(): Promise<NativeContainer[] | undefined> {
    const c = await this.call<{ containers: NativeContainer[] }>('Containers/List', { filters: [] });
    return c?.containers.map(({ id, labels, image, sandbox }) => ({ id, labels, image, sandbox }));
  }

  /** SIGKILL to every process of the container's task. */
  async killTask(containerId: string): Promise<void> {
    await this.call('Tasks/Kill', { containerId, execId: '', signal: SIGKILL, all: true });
  }

  /** Deletes a stopped task; resolves with its exit status. */
  async deleteTask(containerId: string): Promise<{ pid: number; exitStatus: number } | undefined> {
    return this.call('Tasks/Delete', { containerId });
  }

  async deleteContainer(id: string): Promise<void> {
    await this.call('Containers/Delete', { id });
  }

  close(): void {
    this.connection.close();
  }

  /** Resolves undefined on UNIMPLEMENTED (not containerd); rejects with ContainerdNativeError otherwise. */
  private call<T>(name: string, request: unknown): Promise<T | undefined> {
    return this.connection.unary<T>(name, request, this.opts.deadlineMs ?? 5_000, Status.UNIMPLEMENTED);
  }
}

/**
 * Lists containerd's containers and tasks in `namespace`. Resolves undefined when the endpoint does not
 * serve containerd's API; rejects with ContainerdNativeError for any other failure.
 */
export async function listContainerdRecords(
  endpoint: string,
  opts: { namespace?: string; deadlineMs?: number } = {},
): Promise<NativeRecords | undefined> {
  return withContainerdSession(endpoint, opts, (session) => session.list());
}

/**
 * Runs `use` on a session with containerd at `endpoint` in `namespace`, and closes it: for a read of part
 * of the records (`session.containers()`, `session.tasks()`), as listContainerdRecords reads both.
 */
export async function withContainerdSession<T>(
  endpoint: string,
  opts: { namespace?: string; deadlineMs?: number },
  use: (session: ContainerdSession) => Promise<T>,
): Promise<T> {
  const session = new ContainerdSession(endpoint, opts);
  try {
    return await use(session);
  } finally {
    session.close();
  }
}
