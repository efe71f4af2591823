import { join } from 'node:path';
import { expect } from 'chai';
import { startFakeContainerd } from '../../cri/fake-containerd.test.helper.js';
import { socketDir, startCriServer } from '../../cri/fake-cri.test.helper.js';
import { poll } from '../core/waits.js';
import { CreationWatch } from './creation-watch.js';

const id = (digit: string) => digit.repeat(64);
const marks = (runId: string, name = 'cc-pod') => ({
  'cri-conform.io/run': runId,
  'io.kubernetes.pod.name': name,
  'io.kubernetes.pod.namespace': 'cri-conform',
});

describe('CreationWatch', () => {
  let tmp: ReturnType<typeof socketDir>;
  beforeEach(() => {
    tmp = socketDir();
  });
  afterEach(() => tmp.remove());

  it("learns the records containerd makes with every mark of the run's, and nothing of anyone else's", async () => {
    const seen: string[] = [];
    const socket = join(tmp.dir, 'containerd.sock');
    const creations = [
      { id: id('1'), labels: marks('r1') },
      { id: id('2'), labels: marks('r2') },
      { id: id('3'), labels: { ...marks('r1'), 'io.kubernetes.pod.namespace': 'default' } },
      { id: id('4') },
      { id: id('5'), labels: marks('r1', 'cc-other') },
    ];
    const server = await startFakeContainerd(socket, seen, { creations });
    const learnt: string[] = [];
    const watch = CreationWatch.start(`unix://${socket}`, 'r1', (made) => learnt.push(made));
    try {
      await poll(async () => learnt.length === 2, { withinMs: 5_000, what: 'the two records of run r1' });
      expect(learnt).to.deep.equal([id('1'), id('5')]);
      expect(seen).to.include('subscribe namespace==k8s.io,topic=="/containers/create"');
    } finally {
      await watch.stop();
      server.forceShutdown();
    }
  });

  it('learns nothing from an endpoint that is not containerd, and stops when asked', async () => {
    const server = await startCriServer(join(tmp.dir, 'crio.sock'), {});
    const watch = CreationWatch.start(server.endpoint, 'r1', () => expect.fail('nothing to learn'));
    try {
      await watch.stop();
    } finally {
      await server.close();
    }
  });
});
