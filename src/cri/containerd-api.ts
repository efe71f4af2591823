/**
 * One connection to containerd's own gRPC API (not CRI) in one namespace, with the hand-written proto
 * subsets in src/cri/proto: unary calls that resolve undefined on the one status code the caller expects
 * for "nothing there", and server streams. containerd-native.ts and containerd-content.ts use it.
 */
import { Client, credentials, Metadata, type ServiceError, status as Status } from '@grpc/grpc-js';
import { loadSync, type MethodDefinition } from '@grpc/proto-loader';
import { parseEndpoint } from './endpoint.js';
import { LOADER_OPTIONS } from './load-proto.js';
import { protoPath } from './package-root.js';

/** The namespace the CRI plugin of containerd keeps Kubernetes objects in. */
export const CONTAINERD_K8S_NAMESPACE = 'k8s.io';

/** A containerd API call failed for a reason other than the one its caller expects. */
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

/** The methods of `services` in `protos`, as "Service/Rpc" (loaded on first use). */
export function methodTable(
  protos: readonly string[],
  services: readonly string[],
): (name: string) => Method {
  let loaded: Record<string, Method> | undefined;
  return (name) => {
    loaded ??= (() => {
      const def = loadSync(
        protos.map((p) => protoPath(p)),
        { ...LOADER_OPTIONS },
      );
      const out: Record<string, Method> = {};
      for (const service of services) {
        for (const [rpc, m] of Object.entries((def[service] ?? {}) as Record<string, Method>))
          out[`${service.split('.').at(-1)}/${rpc}`] = m;
      }
      return out;
    })();
    const m = loaded[name];
    if (!m) throw new Error(`containerd protos lack ${name}`);
    return m;
  };
}

export class ContainerdConnection {
  private readonly client: Client;
  private readonly metadata = new Metadata();

  constructor(
    endpoint: string,
    private readonly method: (name: string) => Method,
    namespace = CONTAINERD_K8S_NAMESPACE,
  ) {
    this.client = new Client(parseEndpoint(endpoint).target, credentials.createInsecure());
    this.metadata.set('containerd-namespace', namespace);
  }

  /** Resolves undefined on `absent`; rejects with ContainerdNativeError on any other failure. */
  unary<T>(name: string, request: unknown, deadlineMs: number, absent: Status): Promise<T | undefined> {
    const m = this.method(name);
    return new Promise<T | undefined>((resolve, reject) => {
      this.client.makeUnaryRequest(
        m.path,
        m.requestSerialize,
        m.responseDeserialize,
        request,
        this.metadata,
        { deadline: Date.now() + deadlineMs },
        (err: ServiceError | null, value) => {
          if (!err) resolve(value as T);
          else if (err.code === absent) resolve(undefined);
          else reject(new ContainerdNativeError(name, err.code, err.details));
        },
      );
    });
  }

  /**
   * A server stream's messages in order; a failure rejects with ContainerdNativeError. Aborting `signal`
   * cancels the call (the iteration then rejects with CANCELLED).
   */
  stream<T>(name: string, request: unknown, signal?: AbortSignal): AsyncIterable<T> {
    const m = this.method(name);
    const call = this.client.makeServerStreamRequest(
      m.path,
      m.requestSerialize,
      m.responseDeserialize,
      request,
      this.metadata,
    );
    if (signal?.aborted) call.cancel();
    else signal?.addEventListener('abort', () => call.cancel(), { once: true });
    return (async function* () {
      try {
        for await (const msg of call as AsyncIterable<T>) yield msg;
      } catch (e) {
        const err = e as ServiceError;
        throw new ContainerdNativeError(name, err.code ?? Status.UNKNOWN, err.details ?? String(e));
      }
    })();
  }

  close(): void {
    this.client.close();
  }
}
