import { expect } from 'chai';
import {
  makePod,
  type RuntimeFixture,
  startRuntime,
} from '../../../fixtures/nri-runtime-side/e2e-fixture.js';
import { Sequence, Timeline } from '../check/timeline.js';
import { CHECK_LABEL, RUN_LABEL } from '../core/labels.js';
import { CheckNri } from './nri-control.js';
import { RegistrationGate } from './registration-gate.js';

const REQUEST_TIMEOUT_MS = 150;
const ours = makePod('p1', {
  name: 'cc-tear-99-p1',
  namespace: 'cri-conform',
  labels: { [RUN_LABEL]: 'run1', [CHECK_LABEL]: 'TEAR-99' },
});

describe("a check's NRI plugins: waiting for a disconnect, and what of it the contracts require", () => {
  let fx: RuntimeFixture;
  let nri: CheckNri;
  let timeline: Timeline;
  beforeEach(async () => {
    fx = await startRuntime({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
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
      nriRequestTimeoutMs: REQUEST_TIMEOUT_MS,
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

  it('returns the cause when the runtime drops a hung plugin within the window, and counts the hang, not the window', async () => {
    const plugin = await nri.plugin({ index: '10', events: ['StopPodSandbox'] });
    await fx.pluginsWhere((list) => list.length === 1);
    plugin.fault({ match: { event: 'StopPodSandbox' }, action: { kind: 'hang' } });
    void fx.runtime.deliver('StopPodSandbox', ours);
    const cause = await plugin.waitDisconnected({ withinMs: 1_500 });
    expect(cause).to.be.instanceOf(Error);
    // The hang lasted until the runtime's request timeout closed the plugin; never more is counted.
    expect(timeline.requiredWaitMs).to.be.within(REQUEST_TIMEOUT_MS / 2, REQUEST_TIMEOUT_MS);
  });

  it('counts nothing for a hang the check released itself', async () => {
    const plugin = await nri.plugin({ index: '10', events: ['StopPodSandbox'] });
    await fx.pluginsWhere((list) => list.length === 1);
    const hang = plugin.fault({ match: { event: 'StopPodSandbox' }, action: { kind: 'hang' } });
    const delivered = fx.runtime.deliver('StopPodSandbox', ours);
    await hang.reached({ withinMs: 1_000 });
    hang.release();
    await delivered;
    expect(plugin.isConnected()).to.equal(true);
    expect(timeline.requiredWaitMs).to.equal(0);
  });
});
