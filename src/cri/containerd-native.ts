/**
 * A tiny client for containerd's own API on the CRI socket: the containers and tasks containerd keeps in
 * its k8s.io namespace. Host probes use it to find records the CRI no longer shows (a leaked task after a
 * "successful" RemoveContainer). Runtimes other than containerd answer UNIMPLEMENTED: that is `undefined`.
 */
import { Client, credentials, Metadata, type ServiceError, status as Status } from '@grpc/grpc-js';
import { loadSync, type MethodDefinition } from '@grpc/proto-loader';
import { parseEndpoint } from './endpoint.js';
import { LOADER_OPTIONS } from './load-proto.js';
import { protoPath } from './package-root.js';

/** The namespace the CRI plugin of containerd keeps Kubernetes objects in. */
export const CONTAINERD_K8S_NAMESPACE = 'k8s.io';

export interface NativeContainer {
  id: string;
  labels: Record<string, string>;
  image: string;
  /** The sandbox id (containerd 2.x sets it; empty on 1.7). */
  sandbox: string;
}

export interface NativeTask {
  containerId: string;
  /** The exec id; empty for a container's init process. */
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

type Methods = { containers: MethodDefinition<unknown, unknown>; tasks: MethodDefinition<unknown, unknown> };
let methods: Methods | undefined;

function loadMethods(): Methods {
  if (methods) return methods;
  const def = loadSync([protoPath('containerd-containers.proto'), protoPath('containerd-tasks.proto')], {
    ...LOADER_OPTIONS,
  });
  const pick = (service: string) => {
    const m = (def[service] as Record<string, unknown> | undefined)?.List;
    if (!m) throw new Error(`containerd protos lack ${service}/List`);
    return m as MethodDefinition<unknown, unknown>;
  };
  methods = {
    containers: pick('containerd.services.containers.v1.Containers'),
    tasks: pick('containerd.services.tasks.v1.Tasks'),
  };
  return methods;
}

/**
 * Lists containerd's containers and tasks in `namespace`. Resolves undefined when the endpoint does not
 * serve containerd's API; rejects with ContainerdNativeError for any other failure.
 */
export async function listContainerdRecords(
  endpoint: string,
  opts: { namespace?: string; deadlineMs?: number } = {},
): Promise<NativeRecords | undefined> {
  const { containers, tasks } = loadMethods();
  const client = new Client(parseEndpoint(endpoint).target, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('containerd-namespace', opts.namespace ?? CONTAINERD_K8S_NAMESPACE);
  const deadlineMs = opts.deadlineMs ?? 5_000;
  const call = <T>(name: string, m: MethodDefinition<unknown, unknown>, request: unknown) =>
    new Promise<T | undefined>((resolve, reject) => {
      client.makeUnaryRequest(
        m.path,
        m.requestSerialize,
        m.responseDeserialize,
        request,
        metadata,
        { deadline: Date.now() + deadlineMs },
        (err: ServiceError | null, value) => {
          if (!err) resolve(value as T);
          else if (err.code === Status.UNIMPLEMENTED) resolve(undefined);
          else reject(new ContainerdNativeError(name, err.code, err.details));
        },
      );
    });
  try {
    const c = await call<{ containers: NativeContainer[] }>('Containers/List', containers, { filters: [] });
    const t = await call<{ tasks: NativeTask[] }>('Tasks/List', tasks, { filter: '' });
    if (!c || !t) return undefined;
    return {
      containers: c.containers.map(({ id, labels, image, sandbox }) => ({ id, labels, image, sandbox })),
      tasks: t.tasks.map(({ containerId, id, pid, status }) => ({ containerId, id, pid, status })),
    };
  } finally {
    client.close();
  }
}
