/**
 * containerd's new records in namespace k8s.io as it makes them, from its event stream (topic
 * /containers/create), each read at once for its labels: what a run learns of builds whose ids no reply
 * or refusal ever named.
 */
import { status as Status } from '@grpc/grpc-js';
import { CONTAINERD_K8S_NAMESPACE, ContainerdConnection, methodTable } from './containerd-api.js';
import type { NativeContainer } from './containerd-native.js';

const methods = methodTable(
  ['containerd-events.proto', 'containerd-containers.proto'],
  ['containerd.services.events.v1.Events', 'containerd.services.containers.v1.Containers'],
);

const CREATIONS = `namespace==${CONTAINERD_K8S_NAMESPACE},topic=="/containers/create"`;
const GET_MS = 5_000;

/** A record containerd made: its labels, or none where it was removed before it could be read. */
export interface Creation {
  id: string;
  labels?: Record<string, string>;
}

/**
 * Each record containerd makes in namespace k8s.io from now until `signal` aborts, in order. Rejects with
 * ContainerdNativeError when the stream fails: UNIMPLEMENTED where the endpoint is not containerd,
 * UNAVAILABLE where it went away (a restart), CANCELLED once `signal` aborts.
 */
export async function* containerCreations(endpoint: string, signal: AbortSignal): AsyncGenerator<Creation> {
  const connection = new ContainerdConnection(endpoint, methods);
  try {
    const envelopes = connection.stream<{ event?: { value?: { id?: string } } }>(
      'Events/Subscribe',
      { filters: [CREATIONS] },
      signal,
    );
    for await (const envelope of envelopes) {
      const id = envelope.event?.value?.id;
      if (!id) continue;
      const got = await connection
        .unary<{ container?: NativeContainer }>('Containers/Get', { id }, GET_MS, Status.NOT_FOUND)
        .catch(() => undefined);
      yield got?.container ? { id, labels: got.container.labels } : { id };
    }
  } finally {
    connection.close();
  }
}
