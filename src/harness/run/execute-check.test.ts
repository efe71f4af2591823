import { status as Status } from '@grpc/grpc-js';
import { expect } from 'chai';
import type { CheckContext } from '../check/context.js';
import {
  type FakeRuntime,
  fakeEnv,
  grpcError,
  startFakeRuntime,
  testCheck,
} from '../check/fake-runtime.test.helper.js';
import { executeCheck } from './execute-check.js';

describe('executeCheck: what a verdict rests on (fake CRI)', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  afterEach(() => {
    for (const m of ['RunPodSandbox', 'PodSandboxStatus', 'ListContainers', 'ListPodSandbox', 'Version'])
      fake.override(m, undefined);
  });
  after(() => fake.close());

  const run = (check: Parameters<typeof testCheck>[0], spec: Parameters<typeof testCheck>[1] = {}) =>
    executeCheck(fakeEnv(fake.client), testCheck(check, spec), 10_000);

  describe('a pass must have asserted something', () => {
    it('makes a check that ends quietly without one assertion an ERROR, never a PASS', async () => {
      const r = await run(async (t: CheckContext) => {
        await t.cri.runPod(t.make.pod('quiet'));
      });
      expect(r.verdict).to.equal('error');
      expect(r.message).to.match(/asserted nothing/);
    });

    it('passes a check whose assertions held', async () => {
      const r = await run(async (t: CheckContext) => {
        const podId = await t.cri.runPod(t.make.pod('asserts'));
        t.expect((await t.cri.podStateOrGone(podId)) === 'SANDBOX_READY', 'the pod is READY', 'unit');
      });
      expect(r.verdict).to.equal('passed');
    });

    it('counts a window that held (t.holdsFor) as an assertion, and as a required wait', async () => {
      const r = await run(async (t: CheckContext) => {
        await t.holdsFor(() => true, 20, 'nothing happens', 'unit');
      });
      expect(r.verdict).to.equal('passed');
      expect(r.requiredWaitMs).to.equal(20);
    });

    it('makes an OBSERVE check that observed nothing an ERROR, and one that observed something OBSERVED', async () => {
      const silent = await run(async () => {}, { level: 'OBSERVE' });
      expect(silent.verdict).to.equal('error');
      expect(silent.message).to.match(/observed nothing/);
      const observing = await run(async (t: CheckContext) => t.observe('k', 1), { level: 'OBSERVE' });
      expect(observing.verdict).to.equal('observed');
    });
  });

  describe('variants', () => {
    it('makes a check whose variants all skipped a SKIP that gives every reason', async () => {
      const r = await run(async (t: CheckContext) => {
        await t.variant('unknown handler', async () => t.skip('the runtime accepted it'));
        await t.variant('hook error', async () => t.skip('no NRI'));
      });
      expect(r.verdict).to.equal('skipped');
      expect(r.message)
        .to.include('unknown handler: the runtime accepted it')
        .and.include('hook error: no NRI');
    });

    it('passes when one variant skipped and another asserted', async () => {
      const r = await run(async (t: CheckContext) => {
        await t.variant('a', async () => t.skip('cannot run here'));
        await t.variant('b', async () => t.expect(true, 'b held', 'unit'));
      });
      expect(r.verdict).to.equal('passed');
    });

    it('makes a variant that ran without an assertion an ERROR, although another variant asserted', async () => {
      const r = await run(async (t: CheckContext) => {
        await t.variant('asserting', async () => t.expect(true, 'held', 'unit'));
        await t.variant('quiet', async () => {});
      });
      expect(r.verdict).to.equal('error');
      expect(r.message).to.match(/variant "quiet" asserted nothing/);
    });
  });

  describe('setup is not the contract', () => {
    it('makes a setup CRI call that failed an ERROR, not a FAIL', async () => {
      fake.override('RunPodSandbox', () => {
        throw grpcError(Status.UNAVAILABLE, 'runtime is restarting');
      });
      const r = await run(async (t: CheckContext) => {
        await t.cri.runPod(t.make.pod('setup'));
        t.expect(false, 'never reached', 'unit');
      });
      expect(r.verdict).to.equal('error');
      expect(r.message).to.match(/UNAVAILABLE.*not one it asserts on/);
    });

    it('makes the same call a FAIL when the check declares it the contract (t.expectOk)', async () => {
      fake.override('RunPodSandbox', () => {
        throw grpcError(Status.UNKNOWN, 'name is reserved');
      });
      const r = await run(async (t: CheckContext) => {
        await t.expectOk('the identical RunPodSandbox', t.cri.runPod(t.make.pod('contract')), 'unit');
      });
      expect(r.verdict).to.equal('failed');
      expect(r.message).to.match(/^the identical RunPodSandbox: RunPodSandbox: UNKNOWN/);
    });

    it('makes a setup wait that never ended (a marker that never appeared) an ERROR naming what it waited for', async () => {
      const r = await run(async (t: CheckContext) => {
        await t.poll(async () => false, { withinMs: 30, what: 'the workload marker', everyMs: 5 });
        t.expect(true, 'unreached', 'unit');
      });
      expect(r.verdict).to.equal('error');
      expect(r.message).to.match(/waiting for the workload marker/);
    });

    it('makes a contract wait that never ended (t.expectWithin) a FAIL', async () => {
      const r = await run(async (t: CheckContext) => {
        await t.expectWithin(async () => false, {
          withinMs: 30,
          what: 'the sandbox to be reclaimed',
          everyMs: 5,
          clause: 'unit',
        });
      });
      expect(r.verdict).to.equal('failed');
      expect(r.message).to.match(/waiting for the sandbox to be reclaimed/);
    });

    it('makes a FAIL an ERROR when the runtime stopped answering during the check, and keeps what it found', async () => {
      const r = await run(async (t: CheckContext) => {
        await t.cri.runPod(t.make.pod('crash'));
        for (const m of ['ListContainers', 'ListPodSandbox', 'Version'])
          fake.override(m, () => {
            throw grpcError(Status.UNAVAILABLE, 'connection refused');
          });
        t.expect(false, 'plugin 20 never got StopPodSandbox', 'unit');
      });
      expect(r.verdict).to.equal('error');
      expect(r.message).to.match(
        /^the runtime stopped answering during the check \(cleanup: ListPodSandbox: UNAVAILABLE.*it had found: plugin 20 never got StopPodSandbox$/,
      );
    });

    it('keeps a FAIL whose cleanup failed while the runtime still answers (a wedged runtime is its own failure)', async () => {
      const r = await run(async (t: CheckContext) => {
        await t.cri.runPod(t.make.pod('wedged'));
        fake.override('ListContainers', () => {
          throw grpcError(Status.DEADLINE_EXCEEDED, 'lifecycle lock held');
        });
        t.expect(false, 'RemovePodSandbox never returned', 'unit');
      });
      expect(r.verdict).to.equal('failed');
      expect(r.message).to.equal('RemovePodSandbox never returned');
    });

    it('makes an injector that did not hold (t.require) an ERROR', async () => {
      const r = await run(async (t: CheckContext) => {
        t.require(false, 'the slow handler did not hold the request');
      });
      expect(r.verdict).to.equal('error');
      expect(r.message).to.equal('the slow handler did not hold the request');
    });
  });

  describe("a check's time limit follows from its declared waits", () => {
    const limitMs = 200;
    const within = (check: Parameters<typeof testCheck>[0]) =>
      executeCheck(fakeEnv(fake.client), testCheck(check), limitMs);
    /** Work the check does not declare as a wait: a setup poll that comes true only after `ms`. */
    const busyFor = (t: CheckContext, ms: number) => {
      const until = Date.now() + ms;
      return t.poll(async () => Date.now() >= until, { withinMs: ms + 1_000, what: 'the work to end' });
    };

    it('lets a check wait out declared pauses longer than --timeout (IDEM-09 waits --cache-ttl twice)', async () => {
      const r = await within(async (t: CheckContext) => {
        await t.pause(limitMs + 50, 'the sandbox variant waits out the TTL');
        await t.pause(limitMs + 50, 'the container variant waits out the TTL');
        t.expect(true, 'both were reclaimed', 'unit');
      });
      expect(r.verdict, r.message).to.equal('passed');
      expect(r.requiredWaitMs).to.equal(2 * (limitMs + 50));
    });

    it('still ends a check whose own work outlasts --timeout, naming the waits it was granted', async () => {
      const r = await within(async (t: CheckContext) => {
        await t.pause(50, 'a short declared wait');
        await busyFor(t, limitMs + 500);
        t.expect(true, 'never reached', 'unit');
      });
      expect(r.verdict).to.equal('error');
      expect(r.message).to.equal(
        `check timed out after ${limitMs} ms (--timeout) plus 50 ms of its declared waits`,
      );
    });

    it('says plain --timeout when the check declared no wait', async () => {
      const r = await within(async (t: CheckContext) => {
        await busyFor(t, limitMs + 500);
        t.expect(true, 'never reached', 'unit');
      });
      expect(r.message).to.equal(`check timed out after ${limitMs} ms (--timeout)`);
    });
  });

  describe('"gone" means NOT_FOUND', () => {
    it('reads NOT_FOUND from PodSandboxStatus as GONE', async () => {
      const r = await run(async (t: CheckContext) => {
        t.expect((await t.cri.podStateOrGone('f'.repeat(64))) === 'GONE', 'the unknown id is gone', 'unit');
      });
      expect(r.verdict).to.equal('passed');
    });

    it('makes any other status error an ERROR, not proof that the sandbox went away', async () => {
      fake.override('PodSandboxStatus', () => {
        throw grpcError(Status.UNAVAILABLE, 'transport is closing');
      });
      const r = await run(async (t: CheckContext) => {
        const podId = await t.cri.runPod(t.make.pod('status'));
        t.expect((await t.cri.podStateOrGone(podId)) === 'GONE', 'the pod is gone', 'unit');
      });
      expect(r.verdict).to.equal('error');
      expect(r.message).to.match(/PodSandboxStatus: UNAVAILABLE/);
    });
  });
});
