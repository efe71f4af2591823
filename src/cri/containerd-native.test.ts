import { join } from 'node:path';
import {
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServiceDefinition,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { expect } from 'chai';
import { ContainerdSession, listContainerdRecords } from './containerd-native.js';
import { socketDir, startCriServer } from './fake-cri.test.helper.js';
import { LOADER_OPTIONS } from './load-proto.js';
import { protoPath } from './package-root.js';

/** A stand-in for containerd: answers List only in the namespace the request names. */
async function startFakeContainerd(socketPath: string, seen: string[]): Promise<Server> {
  const def = loadSync([protoPath('containerd-containers.proto'), protoPath('containerd-tasks.proto')], {
    ...LOADER_OPTIONS,
  });
  const server = new Server();
  const ns = (call: ServerUnaryCall<unknown, unknown>) =>
    String(call.metadata.get('containerd-namespace')[0] ?? '');
  server.addService(def['containerd.services.containers.v1.Containers'] as ServiceDefinition, {
    Delete: (call: ServerUnaryCall<{ id: string }, unknown>, cb: sendUnaryData<unknown>) => {
      seen.push(`delete container ${call.request.id} in ${ns(call)}`);
      cb(null, {});
    },
    List: (call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) => {
      seen.push(ns(call));
      cb(null, {
        containers:
          ns(call) === 'k8s.io'
            ? [{ id: 'c1', labels: { 'cri-conform.io/run': 'r1' }, image: 'busybox', sandbox: 'p1' }]
            : [],
      });
    },
  });
  server.addService(def['containerd.services.tasks.v1.Tasks'] as ServiceDefinition, {
    List: (_call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) => {
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
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (e) =>
      e ? reject(e) : resolve(),
    ),
  );
  return server;
}

describe('listContainerdRecords', () => {
  let tmp: ReturnType<typeof socketDir>;
  beforeEach(() => {
    tmp = socketDir();
  });
  afterEach(() => tmp.remove());

  it('lists containers with labels and tasks with pids in the k8s.io namespace', async () => {
    const seen: string[] = [];
    const socket = join(tmp.dir, 'containerd.sock');
    const server = await startFakeContainerd(socket, seen);
    try {
      const records = await listContainerdRecords(`unix://${socket}`);
      expect(seen).to.deep.equal(['k8s.io']);
      expect(records).to.deep.equal({
        containers: [{ id: 'c1', labels: { 'cri-conform.io/run': 'r1' }, image: 'busybox', sandbox: 'p1' }],
        tasks: [{ containerId: 'c1', id: '', pid: 4242, status: 'RUNNING' }],
      });
    } finally {
      server.forceShutdown();
    }
  });

  it('kills with SIGKILL to all processes, deletes the task, then the container, in k8s.io', async () => {
    const seen: string[] = [];
    const socket = join(tmp.dir, 'containerd.sock');
    const server = await startFakeContainerd(socket, seen);
    const session = new ContainerdSession(`unix://${socket}`);
    try {
      await session.killTask('c1');
      expect(await session.deleteTask('c1')).to.deep.include({ pid: 4242, exitStatus: 137 });
      await session.deleteContainer('c1');
      expect(seen).to.deep.equal(['kill c1 9 all=true', 'delete task c1', 'delete container c1 in k8s.io']);
    } finally {
      session.close();
      server.forceShutdown();
    }
  });

  it('resolves undefined when the socket does not serve containerd API', async () => {
    const server = await startCriServer(join(tmp.dir, 'crio.sock'), {});
    try {
      expect(await listContainerdRecords(server.endpoint)).to.equal(undefined);
    } finally {
      await server.close();
    }
  });
});
