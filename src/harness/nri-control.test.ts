import { expect } from 'chai';
import { makePod, type RuntimeFixture, startRuntime } from '../../fixtures/nri-runtime-side/e2e-fixture.js';
import { CHECK_LABEL, RUN_LABEL } from './labels.js';
import { CheckNri } from './nri-control.js';
import { RegistrationGate } from './registration-gate.js';
import { Sequence, Timeline } from './timeline.js';

describe("a check's NRI plugins: waiting for a disconnect", () => {
  let fx: RuntimeFixture;
  let nri: CheckNri;
  let timeline: Timeline;
  beforeEach(async () => {
    fx = await startRuntime({ requestTimeoutMs: 150 });
    const sequence = new Sequence();
    timeline = new Timeline(sequence);
    nri = new CheckNri({
      socketPath: fx.socketPath,
      runId: 'run1',
      checkId: 'TEAR-99',
      needs: ['nri', 'stalls-hooks'],
      sequence,
      registrations: new RegistrationGate(),
      timeline,
      signal: new AbortController().signal,
    });
  });
  afterEach(async () => {
    await nri.closeAll();
    await fx.dispose();
  });

  it('counts a window the plugin stayed connected through as a required wait', async () => {
    const plugin = await nri.plugin({ index: '10', events: ['StopPodSandbox'] });
    expect(await plugin.waitDisconnected({ withinMs: 40 })).to.equal(undefined);
    expect(timeline.requiredWaitMs).to.equal(40);
  });

  it('returns the cause, and counts nothing, when the runtime drops the plugin within the window', async () => {
    const plugin = await nri.plugin({ index: '10', events: ['StopPodSandbox'] });
    await fx.pluginsWhere((list) => list.length === 1);
    plugin.fault({ match: { event: 'StopPodSandbox' }, action: { kind: 'hang' } });
    const ours = makePod('p1', { labels: { [RUN_LABEL]: 'run1', [CHECK_LABEL]: 'TEAR-99' } });
    void fx.runtime.deliver('StopPodSandbox', ours);
    const cause = await plugin.waitDisconnected({ withinMs: 1_500 });
    expect(cause).to.be.instanceOf(Error);
    expect(timeline.requiredWaitMs).to.equal(0);
  });
});
