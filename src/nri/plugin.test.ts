import { createConnection } from 'node:net';
import { expect } from 'chai';
import {
  makeContainer,
  makePod,
  type RuntimeFixture,
  startRuntime,
} from '../../fixtures/nri-runtime-side/e2e-fixture.js';
import { listenClosing } from '../closing-server.test.helper.js';
import { NriProtocolError } from './errors.js';
import { encodeProto, PLUGIN_SERVICE } from './messages.js';
import { Mux } from './mux.js';
import { NriPlugin, type PluginOptions } from './plugin.js';
import { TtrpcClient } from './ttrpc-client.js';
import { TtrpcServer } from './ttrpc-server.js';

describe('NriPlugin against the runtime side', () => {
  let fx: RuntimeFixture;
  const plugins: NriPlugin[] = [];
  const start = async (o: Partial<PluginOptions> & { index: string }) => {
    const p = await NriPlugin.start({
      socketPath: fx.socketPath,
      name: `p${o.index}`,
      events: ['RunPodSandbox'],
      ...o,
    });
    plugins.push(p);
    // The runtime lists a plugin once it has read the Synchronize reply, just after start() resolves.
    await fx.pluginsWhere((l) => l.some((x) => x.index === o.index));
    return p;
  };
  afterEach(async () => {
    await Promise.all(plugins.splice(0).map((p) => p.close()));
    await fx.dispose();
  });

  it('registers, reports the runtime from Configure and subscribes exactly the requested events', async () => {
    fx = await startRuntime({ runtimeName: 'reference', runtimeVersion: '9.9', requestTimeoutMs: 1500 });
    const p = await start({ index: '10', events: ['StopPodSandbox', 'StartContainer', 'UpdatePodSandbox'] });
    expect(p.runtime).to.deep.equal({
      name: 'reference',
      version: '9.9',
      nriVersion: 'v0.12.0',
      requestTimeoutMs: 1500,
      registrationTimeoutMs: 5000,
      sentTimeouts: true,
    });
    expect(p.isConnected()).to.equal(true);
    expect(fx.runtime.plugins()).to.deep.equal([{ name: 'p10', index: '10', events: 0x2 | 0x20 | 0x800 }]);
  });

  it('infers NRI v0.6.1 for containerd 1.7.24~ds1 and drops event bits it would reject', async () => {
    fx = await startRuntime({
      runtimeName: 'containerd',
      runtimeVersion: '1.7.24~ds1',
      podEventsVia: 'StateChange',
    });
    const p = await start({ index: '10', events: ['RunPodSandbox', 'UpdatePodSandbox'] });
    expect(p.runtime.nriVersion).to.equal('v0.6.1');
    expect(
      p.runtime.sentTimeouts,
      'NRI v0.6.1 sends no timeouts: the plugin knows only the defaults',
    ).to.equal(false);
    expect(p.subscribed).to.deep.equal(['RunPodSandbox']);
    expect(fx.runtime.plugins()[0]?.events).to.equal(0x1);
  });

  it('fails to start when none of the events is known to the runtime, instead of subscribing to all', async () => {
    fx = await startRuntime({
      runtimeName: 'containerd',
      runtimeVersion: '1.7.24',
      podEventsVia: 'StateChange',
    });
    const err = await start({ index: '10', events: ['UpdatePodSandbox'] }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NriProtocolError).with.property('code', 'ERR_NRI_REGISTRATION');
    expect(fx.runtime.plugins()).to.deep.equal([]);
  });

  it('receives the synchronized pods and containers with netns, ips and pid', async () => {
    const pod = makePod('s1', {
      netnsPath: '/var/run/netns/cni-1',
      ips: ['10.88.0.5'],
      pid: 77,
      labels: { a: 'b' },
    });
    fx = await startRuntime({
      sync: () => ({ pods: [pod], containers: [makeContainer('c1', pod, { state: 3, pid: 78 })] }),
    });
    const p = await start({ index: '10' });
    expect(p.synchronized.pods).to.deep.equal([pod]);
    expect(p.synchronized.containers[0]).to.include({ id: 'c1', podSandboxId: 's1', state: 3, pid: 78 });
  });

  it('delivers each event to plugins in index order, whatever order they registered in', async () => {
    fx = await startRuntime();
    const late = await start({ index: '20' });
    const early = await start({ index: '10' });
    await fx.pluginsWhere((l) => l.length === 2);
    const pod = makePod('o1');
    const results = await fx.runtime.deliver('RunPodSandbox', pod);
    expect(results.map((r) => [r.index, r.outcome])).to.deep.equal([
      ['10', 'ok'],
      ['20', 'ok'],
    ]);
    const [a, b] = [early.events.find({ podId: 'o1' }), late.events.find({ podId: 'o1' })];
    expect(a && b && a.seq < b.seq).to.equal(true);
    expect(a).to.deep.include({
      event: 'RunPodSandbox',
      via: 'RunPodSandbox',
      pluginIndex: '10',
      pluginName: 'p10',
    });
    expect(a?.timeoutMs).to.be.within(1900, 2000);
  });

  it('records container events with the container, via StateChange on a pre-0.12 runtime', async () => {
    fx = await startRuntime({
      runtimeName: 'containerd',
      runtimeVersion: '2.1.9',
      podEventsVia: 'StateChange',
    });
    const p = await start({
      index: '10',
      events: ['RunPodSandbox', 'CreateContainer', 'StartContainer', 'RemoveContainer'],
    });
    const pod = makePod('v1', { netnsPath: '/ns', ips: ['10.0.0.1'] });
    const ctr = makeContainer('c9', pod, { state: 1 });
    await fx.runtime.deliver('RunPodSandbox', pod);
    await fx.runtime.deliver('CreateContainer', pod, ctr);
    await fx.runtime.deliver('StartContainer', pod, ctr);
    const seen = p.events.all().map((e) => [e.event, e.via, e.container?.id ?? '-']);
    expect(seen).to.deep.equal([
      ['RunPodSandbox', 'StateChange', '-'],
      ['CreateContainer', 'CreateContainer', 'c9'],
      ['StartContainer', 'StateChange', 'c9'],
    ]);
    expect(p.events.find({ event: 'RunPodSandbox' })?.pod).to.include({ netnsPath: '/ns' });
  });

  it('answers events of pods it does not accept at once and records nothing for them', async () => {
    fx = await startRuntime();
    const p = await start({ index: '10', acceptsPod: (pod) => pod.labels.mine === 'yes' });
    await fx.runtime.deliver('RunPodSandbox', makePod('x', { labels: { mine: 'no' } }));
    await fx.runtime.deliver('RunPodSandbox', makePod('y', { labels: { mine: 'yes' } }));
    expect(p.events.all().map((e) => e.pod.id)).to.deep.equal(['y']);
  });

  it('waitFor finds history, serves many waiters at once, and names what it saw on timeout', async () => {
    fx = await startRuntime();
    const p = await start({ index: '10', events: ['RunPodSandbox', 'StopPodSandbox'] });
    await fx.runtime.deliver('RunPodSandbox', makePod('h1'));
    const past = await p.events.waitFor({ podId: 'h1' }, { withinMs: 10, what: 'run h1' });
    expect(past.event).to.equal('RunPodSandbox');
    const w1 = p.events.waitFor(
      { event: 'StopPodSandbox', podId: 'h1' },
      { withinMs: 2000, what: 'stop h1' },
    );
    const w2 = p.events.waitFor({ event: 'StopPodSandbox' }, { withinMs: 2000, what: 'any stop' });
    await fx.runtime.deliver('StopPodSandbox', makePod('h1'));
    expect((await w1).seq).to.equal((await w2).seq);
    const miss = await p.events
      .waitFor({ podId: 'nope' }, { withinMs: 20, what: 'pod nope' })
      .catch((e: unknown) => e);
    expect(miss).to.have.property('code', 'ERR_NRI_TIMEOUT');
    expect((miss as Error).message).to.match(/pod nope.*StopPodSandbox pod=default\/pod-h1/);
  });

  it('falls back to StateChange for a plugin that answers a dedicated RPC with status 12', async () => {
    fx = await startRuntime({ podEventsVia: 'dedicated' });
    const socket = createConnection(fx.socketPath);
    const mux = new Mux(socket);
    const got: string[] = [];
    new TtrpcServer(mux.open(1), {
      [PLUGIN_SERVICE]: {
        Configure: () => ({ payload: encodeProto('ConfigureResponse', { events: 0x3 }) }),
        Synchronize: () => ({}),
        StateChange: (c) => {
          got.push(c.method);
          return {};
        },
      },
    });
    await new TtrpcClient(mux.open(2)).call(
      'nri.pkg.api.v1alpha1.Runtime',
      'RegisterPlugin',
      encodeProto('RegisterPluginRequest', { pluginName: 'old', pluginIdx: '30' }),
    );
    await fx.pluginsWhere((l) => l.length === 1);
    const r1 = await fx.runtime.deliver('RunPodSandbox', makePod('f1'));
    const r2 = await fx.runtime.deliver('StopPodSandbox', makePod('f1'));
    expect([r1[0]?.outcome, r2[0]?.outcome]).to.deep.equal(['ok', 'ok']);
    expect(got).to.deep.equal(['StateChange', 'StateChange']);
    mux.close();
  });

  it('rejects with ERR_NRI_REGISTRATION when the runtime never answers, and ERR_NRI_CONNECT without a socket', async () => {
    fx = await startRuntime();
    const path = `${fx.socketPath}.silent`;
    const silent = await listenClosing(path);
    const err = await NriPlugin.start({
      socketPath: path,
      name: 'x',
      index: '10',
      events: ['RunPodSandbox'],
      registrationTimeoutMs: 50,
    }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NriProtocolError).with.property('code', 'ERR_NRI_REGISTRATION');
    await silent.close();
    const none = await NriPlugin.start({
      socketPath: `${path}.none`,
      name: 'x',
      index: '10',
      events: ['RunPodSandbox'],
    }).catch((e: unknown) => e);
    expect(none).to.have.property('code', 'ERR_NRI_CONNECT');
    const bad = await NriPlugin.start({
      socketPath: path,
      name: 'x',
      index: '1',
      events: ['RunPodSandbox'],
    }).catch((e: unknown) => e);
    expect(bad).to.have.property('code', 'ERR_NRI_INVALID_OPTIONS');
  });

  it('settles closed with the reason when the runtime closes, and with undefined after close()', async () => {
    fx = await startRuntime();
    const a = await start({ index: '10' });
    const b = await start({ index: '20' });
    await b.close();
    expect(await b.closed).to.equal(undefined);
    await fx.runtime.close();
    expect(await a.closed)
      .to.be.instanceOf(NriProtocolError)
      .with.property('code', 'ERR_NRI_PEER_CLOSED');
    expect(a.isConnected()).to.equal(false);
  });
});
