import { expect } from 'chai';
import {
  makeContainer,
  makePod,
  type RuntimeFixture,
  startRuntime,
} from '../../fixtures/nri-runtime-side/e2e-fixture.js';
import { NriProtocolError } from './errors.js';
import type { NriEventRecord } from './types.js';
import { watchEvents } from './watch.js';
import { formatWatchLine } from './watch-format.js';

const pod = makePod('0123456789abcdef', {
  name: 'web',
  netnsPath: '/var/run/netns/cni-1',
  ips: ['10.0.0.2'],
  pid: 42,
});
const record: NriEventRecord = {
  seq: 7,
  atMs: 1234.5,
  pluginName: 'watch',
  pluginIndex: '99',
  event: 'StopContainer',
  via: 'StopContainer',
  pod,
  container: makeContainer('abcdef1234567890', pod, { name: 'app', state: 3, pid: 43 }),
  timeoutMs: 2000,
};

describe('nri watch', () => {
  it('formats one human-readable line with pod, container, netns, ips and pid', () => {
    const line = formatWatchLine(record, { json: false, timeOriginMs: Date.UTC(2026, 0, 1, 12, 0, 0) });
    expect(line).to.equal(
      '12:00:01.234 #7 StopContainer default/web pod=0123456789ab ctr=app(abcdef123456) netns=/var/run/netns/cni-1 ips=10.0.0.2 pid=43',
    );
  });

  it('formats one JSON line with stable keys and nulls for what the event lacks', () => {
    const { container: _c, ...podOnly } = record;
    const j = JSON.parse(
      formatWatchLine(
        { ...podOnly, event: 'StopPodSandbox', via: 'StateChange', pod: makePod('p') },
        { json: true, timeOriginMs: 0 },
      ),
    );
    expect(Object.keys(j)).to.deep.equal([
      'time',
      'seq',
      'plugin',
      'event',
      'via',
      'podId',
      'podName',
      'podNamespace',
      'podUid',
      'containerId',
      'containerName',
      'containerState',
      'netnsPath',
      'ips',
      'pid',
      'timeoutMs',
    ]);
    expect(j).to.include({
      plugin: '99-watch',
      event: 'StopPodSandbox',
      via: 'StateChange',
      containerId: null,
      netnsPath: null,
      pid: null,
      timeoutMs: 2000,
    });
  });

  describe('watchEvents against the runtime side', () => {
    let fx: RuntimeFixture;
    beforeEach(async () => {
      fx = await startRuntime();
    });
    afterEach(() => fx.dispose());

    it('writes a line per event of any pod and resolves when the signal aborts', async () => {
      const ac = new AbortController();
      const lines: string[] = [];
      let wrote: () => void = () => {};
      const written = new Promise<void>((r) => (wrote = r));
      const done = watchEvents({
        socketPath: fx.socketPath,
        name: 'watch',
        index: '99',
        json: true,
        signal: ac.signal,
        write: (l) => {
          lines.push(l);
          wrote();
        },
      });
      await fx.pluginsWhere((l) => l.length === 1);
      expect(fx.runtime.plugins()[0]?.events).to.equal(0x3fff);
      await fx.runtime.deliver('RunPodSandbox', pod);
      await written;
      expect(JSON.parse(lines[0] ?? '{}')).to.include({ event: 'RunPodSandbox', podName: 'web' });
      ac.abort();
      await done;
      await fx.pluginsWhere((l) => l.length === 0);
    });

    it('rejects with an NriProtocolError when the runtime closes the connection', async () => {
      const done = watchEvents({
        socketPath: fx.socketPath,
        name: 'watch',
        index: '99',
        json: false,
        signal: new AbortController().signal,
        write: () => {},
      });
      await fx.pluginsWhere((l) => l.length === 1);
      const outcome = done.catch((e: unknown) => e);
      await fx.runtime.close();
      const err = await outcome;
      expect(err).to.be.instanceOf(NriProtocolError).with.property('code', 'ERR_NRI_PEER_CLOSED');
    });
  });
});
