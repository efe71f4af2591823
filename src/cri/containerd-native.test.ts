import { join } from 'node:path';
import { expect } from 'chai';
import { ContainerdSession, listContainerdRecords } from './containerd-native.js';
import { startFakeContainerd } from './fake-containerd.test.helper.js';
import { socketDir, startCriServer } from './fake-cri.test.helper.js';

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
