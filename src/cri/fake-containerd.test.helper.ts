/**
 * A stand-in for containerd's own API on a unix socket: one container and its task in the k8s.io
 * namespace. Named *.test.helper.ts so mocha's *.test.js glob skips it.
 */
import {
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  status as Status,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { LOADER_OPTIONS } from './load-proto.js';
import { protoPath } from './package-root.js';

/** A stand-in for containerd: answers List only in the namespace the request names. */
export async function startFakeContainerd(
  socketPath: string,
  seen: string[],
  opts: {
    /** How many Tasks/List calls fail with UNAVAILABLE before one answers (a containerd too busy to). */
    failedTaskLists?: number;
    /**
     * Records made while a client subscribes to /containers/create: each is announced, and Containers/Get
     * answers with its labels, or NOT_FOUND for one without (removed before it was read).
     */
    creations?: readonly { id: string; labels?: Record<string, string> }[];
    /** The containers it records in k8s.io (default one, c1 of run r1, whose task has pid 4242). */
    containers?: readonly { id: string; labels?: Record<string, string> }[];
  } = {},
): Promise<Server> {
  let failsLeft = opts.failedTaskLists ?? 0;
  const creations = opts.creations ?? [];
  const def = loadSync(
    ['containerd-containers.proto', 'containerd-tasks.proto', 'containerd-events.proto'].map((p) =>
      protoPath(p),
    ),
    { ...LOADER_OPTIONS },
  );
  const server = new Server();
  const ns = (call: ServerUnaryCall<unknown, unknown>) =>
    String(call.metadata.get('containerd-namespace')[0] ?? '');
  server.addService(def['containerd.services.containers.v1.Containers'] as ServiceDefinition, {
    Delete: (call: ServerUnaryCall<{ id: string }, unknown>, cb: sendUnaryData<unknown>) => {
      seen.push(`delete container ${call.request.id} in ${ns(call)}`);
      cb(null, {});
    },
    Get: (call: ServerUnaryCall<{ id: string }, unknown>, cb: sendUnaryData<unknown>) => {
      const made = creations.find((c) => c.id === call.request.id);
      if (made?.labels) cb(null, { container: { id: made.id, labels: made.labels } });
      else cb({ code: Status.NOT_FOUND, details: `container "${call.request.id}": not found` });
    },
    List: (call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) => {
      seen.push(ns(call));
      const recorded = opts.containers ?? [{ id: 'c1', labels: { 'cri-conform.io/run': 'r1' } }];
      cb(null, {
        containers:
          ns(call) === 'k8s.io'
            ? recorded.map((c) => ({ id: c.id, labels: c.labels ?? {}, image: 'busybox', sandbox: 'p1' }))
            : [],
      });
    },
  });
  server.addService(def['containerd.services.tasks.v1.Tasks'] as ServiceDefinition, {
    List: (_call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) => {
      if (failsLeft-- > 0) {
        seen.push('tasks list failed');
        cb({ code: Status.UNAVAILABLE, details: 'too busy' });
        return;
      }
      cb(null, { tasks: [{ containerId: 'c1', id: '', pid: 4242, status: 'RUNNING' }] });
    },
    Kill: (
      call: ServerUnaryCall<{ containerId: string; signal: number; all: boolean }, unknown>,
      cb: sendUnaryData<unknown>,
    ) => {
      seen.push(`kill ${call.request.containerId} ${call.request.signal} all=${call.request.all}`);
      cb(null, {});
    },
    Delete: (call: ServerUnaryCall<{ containerId: string }, unknown>, cb: sendUnaryData<unknown>) => {
      seen.push(`delete task ${call.request.containerId}`);
      cb(null, { id: call.request.containerId, pid: 4242, exitStatus: 137 });
    },
  });
  server.addService(def['containerd.services.events.v1.Events'] as ServiceDefinition, {
    Subscribe: (call: ServerWritableStream<{ filters: string[] }, unknown>) => {
      seen.push(`subscribe ${call.request.filters.join(' ')}`);
      for (const { id } of creations)
        call.write({ namespace: 'k8s.io', topic: '/containers/create', event: { value: { id } } });
    },
  });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (e) =>
      e ? reject(e) : resolve(),
    ),
  );
  return server;
}
