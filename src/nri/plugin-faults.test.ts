import { expect } from 'chai';
import { makePod, type RuntimeFixture, startRuntime } from '../../fixtures/nri-runtime-side/e2e-fixture.js';
import { NriProtocolError } from './errors.js';
import { NriPlugin, type PluginOptions } from './plugin.js';

describe('NriPlugin faults and how the runtime side classifies them', () => {
  let fx: RuntimeFixture;
  const plugins: NriPlugin[] = [];
  const start = async (index: string, o: Partial<PluginOptions> = {}) => {
    const p = await NriPlugin.start({
      socketPath: fx.socketPath,
      name: `p${index}`,
      index,
      events: ['RunPodSandbox', 'StopPodSandbox'],
      ...o,
    });
    plugins.push(p);
    await fx.pluginsWhere((l) => l.some((x) => x.index === index));
    return p;
  };
  beforeEach(async () => {
    fx = await startRuntime({ requestTimeoutMs: 2000 });
  });
  afterEach(async () => {
    await Promise.all(plugins.splice(0).map((p) => p.close()));
    await fx.dispose();
  });

  it('replies status 2 for an error fault: the runtime stops the relay there and keeps the plugin', async () => {
    const p10 = await start('10');
    const p20 = await start('20');
    p10.addFault({
      match: { event: 'StopPodSandbox', podId: 'e1' },
      action: { kind: 'error', message: 'plugin says no' },
    });
    const r = await fx.runtime.deliver('StopPodSandbox', makePod('e1'));
    expect(r.map((x) => x.outcome)).to.deep.equal(['error', 'skipped']);
    expect(r[0]?.message).to.contain('plugin says no');
    expect(p10.events.find({ podId: 'e1' })?.fault).to.equal('error');
    expect(p20.events.count()).to.equal(0);
    const teardown = await fx.runtime.deliver('StopPodSandbox', makePod('e1'), undefined, {
      continueOnError: true,
    });
    expect(teardown.map((x) => x.outcome)).to.deep.equal(['error', 'ok']);
    expect(fx.runtime.plugins().map((x) => x.index)).to.deep.equal(['10', '20']);
  });

  it('acts only on matching events of accepted pods', async () => {
    const p = await start('10', { acceptsPod: (pod) => pod.id !== 'foreign' });
    p.addFault({ match: { event: 'StopPodSandbox' }, action: { kind: 'error' } });
    const other = await fx.runtime.deliver('RunPodSandbox', makePod('a1'));
    const foreign = await fx.runtime.deliver('StopPodSandbox', makePod('foreign'));
    expect([other[0]?.outcome, foreign[0]?.outcome]).to.deep.equal(['ok', 'ok']);
  });

  it('acts on `times` events only, and not at all after remove()', async () => {
    const p = await start('10');
    const once = p.addFault({ match: { event: 'RunPodSandbox' }, action: { kind: 'error' }, times: 1 });
    const outcomes = [];
    for (const id of ['t1', 't2'])
      outcomes.push((await fx.runtime.deliver('RunPodSandbox', makePod(id)))[0]?.outcome);
    expect(outcomes).to.deep.equal(['error', 'ok']);
    expect(once.hits).to.equal(1);
    const f = p.addFault({ match: { event: 'RunPodSandbox' }, action: { kind: 'error' } });
    f.remove();
    expect((await fx.runtime.deliver('RunPodSandbox', makePod('t3')))[0]?.outcome).to.equal('ok');
  });

  it('ends a wait for a fault that is removed before it acted, at once and saying so, and keeps what it acted on', async () => {
    const p = await start('10');
    const unreached = p.addFault({
      match: { event: 'RunPodSandbox', podId: 'never' },
      action: { kind: 'hang' },
    });
    const waiting = unreached.reached({ withinMs: 60_000 });
    const startedAt = performance.now();
    unreached.remove();
    const err = await waiting.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(performance.now() - startedAt).to.be.below(1_000);
    expect(err).to.be.instanceOf(NriProtocolError);
    expect((err as Error).message).to.match(/not reached: fault disarmed \(removed\)/);
    const acted = p.addFault({ match: { event: 'RunPodSandbox', podId: 'r1' }, action: { kind: 'error' } });
    await fx.runtime.deliver('RunPodSandbox', makePod('r1'));
    acted.remove();
    expect((await acted.reached({ withinMs: 0 })).pod.id).to.equal('r1');
    const closing = p.addFault({
      match: { event: 'RunPodSandbox', podId: 'never' },
      action: { kind: 'hang' },
    });
    const closed = closing.reached({ withinMs: 60_000 }).then(
      () => '',
      (e: unknown) => (e as Error).message,
    );
    await p.close();
    expect(await closed).to.match(/not reached: fault disarmed \(its plugin closed\)/);
  });

  it('delays the OK reply by the given ms', async () => {
    const p = await start('10');
    p.addFault({ match: { event: 'RunPodSandbox' }, action: { kind: 'delay', ms: 80 } });
    const [r] = await fx.runtime.deliver('RunPodSandbox', makePod('d1'));
    expect(r?.outcome).to.equal('ok');
    expect(r?.latencyMs).to.be.at.least(75);
  });

  it('cuts a delay short on release(): the OK goes out then, not when the delay would have ended', async () => {
    const p = await start('10');
    const hold = p.addFault({ match: { event: 'RunPodSandbox' }, action: { kind: 'delay', ms: 1_500 } });
    const delivery = fx.runtime.deliver('RunPodSandbox', makePod('d2'));
    await hold.reached({ withinMs: 2000 });
    hold.release();
    const [r] = await delivery;
    expect(r?.outcome).to.equal('ok');
    expect(r?.latencyMs).to.be.below(1_500);
  });

  it('holds a hang until release() and then replies OK', async () => {
    const p = await start('10');
    const hold = p.addFault({ match: { event: 'RunPodSandbox', podId: 'h1' }, action: { kind: 'hang' } });
    const delivery = fx.runtime.deliver('RunPodSandbox', makePod('h1'));
    const reached = await hold.reached({ withinMs: 2000 });
    expect(reached).to.deep.include({ event: 'RunPodSandbox', fault: 'hang' });
    hold.release();
    expect((await delivery).map((x) => x.outcome)).to.deep.equal(['ok']);
    expect(hold.hits).to.equal(1);
  });

  it('lets the runtime time out a hang: the plugin is closed and removed, later plugins still get the event', async () => {
    const p10 = await start('10');
    const p20 = await start('20');
    p10.addFault({ match: { event: 'StopPodSandbox' }, action: { kind: 'hang' } });
    const r = await fx.runtime.deliver('StopPodSandbox', makePod('x1'), undefined, { timeoutMs: 100 });
    expect(r.map((x) => [x.index, x.outcome])).to.deep.equal([
      ['10', 'timeout'],
      ['20', 'ok'],
    ]);
    expect(await p10.closed)
      .to.be.instanceOf(NriProtocolError)
      .with.property('code', 'ERR_NRI_PEER_CLOSED');
    expect(p10.events.find({ podId: 'x1' })?.timeoutMs).to.be.within(90, 100);
    expect(p20.events.count({ podId: 'x1' })).to.equal(1);
    expect(fx.runtime.plugins().map((x) => x.index)).to.deep.equal(['20']);
  });

  it('closes the socket for a crash fault; the runtime reports closed and a new start re-registers', async () => {
    const opts = { acceptsPod: () => true };
    const p = await start('10', opts);
    p.addFault({ match: { event: 'RunPodSandbox' }, action: { kind: 'crash' } });
    const r = await fx.runtime.deliver('RunPodSandbox', makePod('c1'));
    expect(r.map((x) => x.outcome)).to.deep.equal(['closed']);
    expect(await p.closed).to.have.property('code', 'ERR_NRI_CRASH_FAULT');
    await fx.pluginsWhere((l) => l.length === 0);
    const again = await start('10', opts);
    expect((await fx.runtime.deliver('RunPodSandbox', makePod('c2')))[0]?.outcome).to.equal('ok');
    expect(again.events.all().map((e) => e.pod.id)).to.deep.equal(['c2']);
  });

  it('close() replies OK to every held event before ending the socket', async () => {
    const p = await start('10');
    const hold = p.addFault({ match: { event: 'RunPodSandbox' }, action: { kind: 'hang' } });
    const delivery = fx.runtime.deliver('RunPodSandbox', makePod('r1'));
    await hold.reached({ withinMs: 2000 });
    await p.close();
    await p.close();
    expect((await delivery)[0]?.outcome).to.equal('ok');
    expect(await p.closed).to.equal(undefined);
  });

  it('serialises deliveries across pods: a held event delays the next pod until released', async () => {
    const p = await start('10');
    const hold = p.addFault({ match: { event: 'RunPodSandbox', podId: 'slow' }, action: { kind: 'hang' } });
    const first = fx.runtime.deliver('RunPodSandbox', makePod('slow'));
    await hold.reached({ withinMs: 2000 });
    const second = fx.runtime.deliver('RunPodSandbox', makePod('fast'));
    const order: string[] = [];
    void second.then(() => order.push('fast'));
    hold.release();
    await first.then(() => order.push('slow'));
    await second;
    expect(order).to.deep.equal(['slow', 'fast']);
    expect(p.events.all().map((e) => e.pod.id)).to.deep.equal(['slow', 'fast']);
  });
});
