import { expect } from 'chai';
import { DELAY_MS } from '../common/timing.js';
import { slowHandlerCreateDelay } from './container-scenarios.js';
import { evidence } from './scenarios.js';
import { whyNothingLogged } from './slow-handler.js';

describe('IDEM evidence: one call, one outcome, the one the timeline shows', () => {
  it('names the code the runtime answered, and that it came past the deadline a kubelet gave up at', () => {
    const late = {
      ok: false as const,
      code: 'UNKNOWN',
      codeNumber: 2,
      message: 'context deadline exceeded',
      latencyMs: 568,
    };
    expect(evidence(late)).to.equal(
      'first UNKNOWN 568ms (answered past its 500 ms deadline: a kubelet had given up with DEADLINE_EXCEEDED)',
    );
    expect(evidence({ ok: true, value: 'id', latencyMs: 640 })).to.match(/^first OK 640ms \(answered past/);
  });

  it('adds nothing to an ending by the deadline or a cancel', () => {
    const timedOut = {
      ok: false as const,
      code: 'DEADLINE_EXCEEDED',
      codeNumber: 4,
      message: '',
      latencyMs: 503,
    };
    expect(evidence(timedOut)).to.equal('first DEADLINE_EXCEEDED 503ms');
    const cancelled = { ok: false as const, code: 'CANCELLED', codeNumber: 1, message: '', latencyMs: 650 };
    expect(evidence(cancelled)).to.equal('first CANCELLED 650ms');
  });
});

describe('IDEM: why the slow runtime handler logged no build', () => {
  it('blames the deadline, not the injector, when the first attempt failed before the runtime reached it', () => {
    const timedOut = {
      ok: false as const,
      code: 'DEADLINE_EXCEEDED',
      codeNumber: 4,
      message: '',
      latencyMs: 512,
    };
    expect(whyNothingLogged(timedOut)).to.match(
      /^the request's 500 ms deadline ran out \(DEADLINE_EXCEEDED after 512 ms\) before it reached the injector: /,
    );
    expect(whyNothingLogged(timedOut)).not.to.contain('did not hold');
  });

  it('blames the injector when the runtime answered OK without the handler having logged a create', () => {
    expect(whyNothingLogged({ ok: true, value: 'id', latencyMs: 640 })).to.equal(
      'the injector did not hold the request',
    );
  });
});

describe('IDEM: the slow runtime handler holding a CreateContainer', () => {
  it('holds as long as the first attempt asks, so a deadline that grew with the lateness learnt still expires in it', async () => {
    const delays: number[] = [];
    const delay = slowHandlerCreateDelay({
      handler: 'conform-slow',
      setDelay: async (ms) => void delays.push(ms),
    });
    await delay.arm('pod', 'workload', DELAY_MS + 400);
    await delay.arm('pod', 'workload');
    await delay.disarm();
    expect(delays).to.deep.equal([DELAY_MS + 400, DELAY_MS, 0]);
  });
});
