/**
 * A tiny client for containerd's own API on the CRI socket: the containers and tasks containerd keeps in
 * its k8s.io namespace. Host probes use it to find records the CRI no longer shows (a leaked task after a
 * "successful" RemoveContainer), and `cleanup --native` to remove them. Runtimes other than containerd
 * answer UNIMPLEMENTED: that is `undefined`.
 */
import { Client, credentials, Metadata, type ServiceError, status as Status } from '@grpc/grpc-js';
import { loadSync, type MethodDefinition } from '@grpc/proto-loader';
import { parseEndpoint } from './endpoint.js';
import { LOADER_OPTIONS } from './load-proto.js';
import { protoPath } from './package-root.js';

/** The namespace the CRI plugin of containerd keeps Kubernetes objects in. */
export const CONTAINERD_K8S_NAMESPACE = 'k8s.io';
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

/** A containerd API call failed for a reason other than "not containerd". */
export class ContainerdNativeError extends Error {
  readonly code = 'ERR_CONTAINERD_NATIVE';

  constructor(
    readonly method: string,
    readonly status: number,
    readonly details: string,
  ) {
    super(`containerd ${method}: ${Status[status] ?? status} (${status}): ${details}`);
    this.name = 'ContainerdNativeError';
  }
}

type Method = MethodDefinition<unknown, unknown>;
const CONTAINERS = 'containerd.services.containers.v1.Containers';
const TASKS = 'containerd.services.tasks.v1.Tasks';
let loaded: Record<string, Method> | undefined;

function method(name: string): Method {
  loaded ??= (() => {
    const def = loadSync([protoPath('containerd-containers.proto'), protoPath('containerd-tasks.proto')], {
      ...LOADER_OPTIONS,
    });
    const out: Record<string, Method> = {};
    for (const service of [CONTAINERS, TASKS]) {
      for (const [rpc, m] of Object.entries((def[service] ?? {}) as Record<string, Method>)) {
        out[`${service.split('.').at(-1)}/${rpc}`] = m;
      }
    }
    return out;
  })();
  const m = loaded[name];
  if (!m) throw new Error(`containerd protos lack ${name}`);
  return m;
}

/** One connection to containerd's API in one namespace. */
export class ContainerdSession {
  private readonly client: Client;
  private readonly metadata = new Metadata();

  constructor(
    endpoint: string,
    private readonly opts: { namespace?: string; deadlineMs?: number } = {},
  ) {
    this.client = new Client(parseEndpoint(endpoint).target, credentials.createInsecure());
    this.metadata.set('containerd-namespace', opts.namespace ?? CONTAINERD_K8S_NAMESPACE);
  }

  /** Both lists, or undefined when the endpoint does not serve containerd's API. */
  async list(): Promise<NativeRecords | undefined> {
    const c = await this.call<{ containers: NativeContainer[] }>('Containers/List', { filters: [] });
    const t = await this.call<{ tasks: NativeTask[] }>('Tasks/List', { filter: '' });
    if (!c || !t) return undefined;
    return {
      containers: c.containers.map(({ id, labels, image, sandbox }) => ({ id, labels, image, sandbox })),
      // Tasks/List leaves container_id empty and names the task by its container's id.
      tasks: t.tasks.map(({ containerId, id, pid, status }) => ({
        containerId: containerId || id,
        id,
        pid,
        status,
      })),
    };
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
    this.client.close();
  }

  /** Resolves undefined on UNIMPLEMENTED; rejects with ContainerdNativeError on any other failure. */
  private call<T>(name: string, request: unknown): Promise<T | undefined> {
    const m = method(name);
    return new Promise<T | undefined>((resolve, reject) => {
      this.client.makeUnaryRequest(
        m.path,
        m.requestSerialize,
        m.responseDeserialize,
        request,
        this.metadata,
        { deadline: Date.now() + (this.opts.deadlineMs ?? 5_000) },
        (err: ServiceError | null, value) => {
          if (!err) resolve(value as T);
          else if (err.code === Status.UNIMPLEMENTED) resolve(undefined);
          else reject(new ContainerdNativeError(name, err.code, err.details));
        },
      );
    });
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
  const session = new ContainerdSession(endpoint, opts);
  try {
    return await session.list();
  } finally {
    session.close();
  }
}
