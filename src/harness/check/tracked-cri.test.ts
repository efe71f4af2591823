import { expect } from 'chai';
import { CHECK_LABEL, RUN_LABEL } from '../core/labels.js';
import { executeCheck } from '../run/execute-check.js';
import type { CallOpts, CallResult, CheckContext } from './context.js';
import { type FakeRuntime, fakeEnv, startFakeRuntime, testCheck } from './fake-runtime.test.helper.js';

describe('the tracked CRI a check sees (fake CRI)', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  afterEach(() => fake.override('RunPodSandbox', undefined));
  after(() => fake.close());

  it('lists only the check’s own labelled sandboxes, and the cleanup leaves foreign ones alone', async () => {
    const foreign = fake.publish({
      metadata: { name: 'someone-else', attempt: 0 },
      labels: { [RUN_LABEL]: 'another-run', [CHECK_LABEL]: 'UNIT-01' },
      state: 'SANDBOX_READY',
    });
    let listed: string[] = [];
    const r = await executeCheck(
      fakeEnv(fake.client),
      testCheck(async (t: CheckContext) => {
        const own = await t.cri.runPod(t.make.pod('own'));
        listed = (await t.cri.listPods()).map((p) => p.id);
        t.expect(listed.length === 1 && listed[0] === own, 'only the own pod is listed', 'unit');
      }),
      10_000,
    );
    expect(r.verdict).to.equal('passed');
    expect([...fake.pods.keys()]).to.deep.equal([foreign]);
    fake.pods.delete(foreign);
  });

  /** A check whose RunPodSandbox the runtime never answers, called with `opts`. */
  const hungRunPod = (opts: CallOpts, judge: (t: CheckContext, reply: CallResult<unknown>) => void) => {
    fake.override('RunPodSandbox', () => new Promise(() => {}));
    return executeCheck(
      fakeEnv(fake.client),
      testCheck(async (t: CheckContext) => {
        const request = { config: t.make.pod('slow'), runtimeHandler: '' };
        judge(t, await t.cri.tryCall('RunPodSandbox', request, opts));
      }),
      10_000,
    );
  };

  it('writes every call to the timeline with its status, and counts a call meant to time out as a required wait', async () => {
    const r = await hungRunPod({ deadlineMs: 50 }, (t, reply) =>
      t.expect(!reply.ok && reply.code === 'DEADLINE_EXCEEDED', 'the call timed out', 'unit'),
    );
    expect(r.verdict).to.equal('passed');
    const calls = r.timeline.filter((e) => e.kind === 'cri');
    expect(calls.map((e) => [e.method, e.code])).to.deep.include(['RunPodSandbox', 'DEADLINE_EXCEEDED']);
    // The call's measured time can come out a millisecond under its deadline: gRPC's deadline timer and
    // the clock the latency is read from are not the same.
    expect(r.requiredWaitMs).to.be.within(48, 50);
  });

  it('holds back the cancel of a call whose runtime deadline should end it, and counts the wait as required', async () => {
    // The fake runtime honours the deadline it was sent; the client would give up only at 150 ms.
    const r = await hungRunPod({ deadlineMs: 50, cancelLateByMs: 100 }, (t, reply) =>
      t.expect(
        !reply.ok && reply.latencyMs >= 50,
        `the call ended at its deadline: ${JSON.stringify(reply)}`,
        'unit',
      ),
    );
    expect(r.verdict, r.message).to.equal('passed');
    expect(r.requiredWaitMs).to.be.within(50, 400);
  });

  it('counts retries that never succeed as one required wait of their span, and retries that succeed as none', async () => {
    const policy = { attemptDeadlineMs: 30, budgetMs: 200, backoffMs: 20, maxBackoffMs: 40 };
    fake.override('RunPodSandbox', () => new Promise(() => {}));
    const spent = await executeCheck(
      fakeEnv(fake.client),
      testCheck(async (t: CheckContext) => {
        const outcome = await t.cri.retry('RunPodSandbox', t.cri.runPodRequest(t.make.pod('never')), policy);
        t.expect(outcome.value === undefined && outcome.attempts.length > 1, 'no retry succeeded', 'unit');
      }),
      10_000,
    );
    expect(spent.verdict, spent.message).to.equal('passed');
    expect(spent.requiredWaitMs).to.be.within(150, 200);
    fake.override('RunPodSandbox', undefined);
    const converged = await executeCheck(
      fakeEnv(fake.client),
      testCheck(async (t: CheckContext) => {
        const outcome = await t.cri.retry(
          'RunPodSandbox',
          t.cri.runPodRequest(t.make.pod('at-once')),
          policy,
        );
        t.expect(outcome.value !== undefined, 'the first attempt succeeded', 'unit');
      }),
      10_000,
    );
    expect(converged.verdict, converged.message).to.equal('passed');
    expect(converged.requiredWaitMs).to.equal(0);
  });

  it('waits at teardown for a call still in flight, so what it builds is cleaned up too', async () => {
    fake.override(
      'RunPodSandbox',
      (req) =>
        new Promise((resolve) => {
          const { config } = req as {
            config: { metadata: { name: string; attempt: number }; labels: Record<string, string> };
          };
          // The runtime finishes the build after the client gave up on it.
          setTimeout(
            () => resolve({ podSandboxId: fake.publish({ ...config, state: 'SANDBOX_READY' }) }),
            150,
          );
        }),
    );
    const r = await executeCheck(
      fakeEnv(fake.client),
      testCheck(async (t: CheckContext) => {
        void t.cri.call('RunPodSandbox', { config: t.make.pod('late'), runtimeHandler: '' });
        t.expect(true, 'the call was sent', 'unit');
      }),
      10_000,
    );
    expect(r.verdict).to.equal('passed');
    expect(fake.pods.size).to.equal(0);
  });

  it('sends containers with their pod’s kubelet labels, and refuses to send a container without a log path', async () => {
    let sent: Record<string, string> = {};
    fake.override('CreateContainer', (req) => {
      sent = (req as { config: { labels: Record<string, string> } }).config.labels;
      return { containerId: 'c1' };
    });
    const r = await executeCheck(
      fakeEnv(fake.client),
      testCheck(async (t: CheckContext) => {
        const pod = t.make.pod('labelled');
        const podId = await t.cri.runPod(pod);
        await t.cri.createContainer(podId, t.make.container('c'), pod);
        const unsafe = t.cri.createContainer(podId, { ...t.make.container('d'), logPath: '' }, pod);
        const refused = await unsafe.then(
          () => '',
          (e: Error) => e.message,
        );
        t.expect(/refused to send CreateContainer without a log path/.test(refused), refused, 'unit');
        t.expect(
          sent['io.kubernetes.pod.uid'] === pod.metadata.uid,
          'the container carries the pod UID',
          'unit',
        );
      }),
      10_000,
    );
    fake.override('CreateContainer', undefined);
    expect(r.verdict, r.message).to.equal('passed');
    expect(r.timeline.filter((e) => e.kind === 'cri' && e.method === 'CreateContainer')).to.have.length(1);
  });
});
