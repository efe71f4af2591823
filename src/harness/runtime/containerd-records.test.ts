import { join } from 'node:path';
import { expect } from 'chai';
import { startFakeContainerd } from '../../cri/fake-containerd.test.helper.js';
import { socketDir, startCriServer } from '../../cri/fake-cri.test.helper.js';
import { RecordsUnreadError, readContainerd, readContainerdRecords } from './containerd-records.js';

describe('readContainerdRecords', () => {
  let tmp: ReturnType<typeof socketDir>;
  beforeEach(() => {
    tmp = socketDir();
  });
  afterEach(() => tmp.remove());

  it('asks again while containerd is too busy to list, and returns what it then lists', async () => {
    const seen: string[] = [];
    const socket = join(tmp.dir, 'containerd.sock');
    const server = await startFakeContainerd(socket, seen, { failedTaskLists: 2 });
    try {
      const records = await readContainerdRecords(`unix://${socket}`);
      expect(records?.tasks.map((t) => t.pid)).to.deep.equal([4242]);
      expect(seen.filter((s) => s === 'tasks list failed')).to.have.length(2);
    } finally {
      server.forceShutdown();
    }
  });

  it('reads the tasks alone, asked again the same way while containerd is too busy to list them', async () => {
    const seen: string[] = [];
    const socket = join(tmp.dir, 'containerd.sock');
    const server = await startFakeContainerd(socket, seen, { failedTaskLists: 1 });
    try {
      const tasks = await readContainerd(`unix://${socket}`, (s) => s.tasks());
      expect(tasks).to.deep.equal([{ containerId: 'c1', id: '', pid: 4242, status: 'RUNNING' }]);
      expect(seen).to.deep.equal(['tasks list failed']);
    } finally {
      server.forceShutdown();
    }
  });

  it('never takes a read that keeps failing for "no records": it says it could not read them', async () => {
    const socket = join(tmp.dir, 'containerd.sock');
    const server = await startFakeContainerd(socket, [], { failedTaskLists: Number.POSITIVE_INFINITY });
    try {
      const read = readContainerdRecords(`unix://${socket}`, { withinMs: 600 });
      const error = await read.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(RecordsUnreadError);
      expect((error as Error).message).to.match(
        /could not read containerd's own .* within 600 ms, .*too busy/,
      );
    } finally {
      server.forceShutdown();
    }
  });

  it('resolves undefined where there are none to read: no endpoint, or not containerd', async () => {
    expect(await readContainerdRecords(undefined)).to.equal(undefined);
    const server = await startCriServer(join(tmp.dir, 'crio.sock'), {});
    try {
      expect(await readContainerdRecords(server.endpoint)).to.equal(undefined);
    } finally {
      await server.close();
    }
  });
});
