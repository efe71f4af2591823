import { status as Status } from '@grpc/grpc-js';
import { expect } from 'chai';
import { type FakeRuntime, grpcError, startFakeRuntime } from '../check/fake-runtime.test.helper.js';
import { CHECK_LABEL, RUN_LABEL } from '../core/labels.js';
import { removeLabelled, removeLabelledUntilGone } from './cleanup.js';

describe('cleanup of labelled objects (fake CRI)', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  afterEach(() => {
    fake.override('StopPodSandbox', undefined);
    fake.pods.clear();
    fake.containers.clear();
  });
  after(() => fake.close());

  /** A pod with the run's marks: its namespace and name prefix, and the given labels. */
  const pod = (labels: Record<string, string>, metadata = { name: 'cc-unit-p', namespace: 'cri-conform' }) =>
    fake.publish({ metadata: { ...metadata, attempt: 0 }, labels, state: 'SANDBOX_READY' });
  const container = (podSandboxId: string, labels: Record<string, string>) => {
    const id = `c-${podSandboxId}`;
    fake.containers.set(id, {
      id,
      podSandboxId,
      metadata: { name: 'w', attempt: 0 },
      labels,
      state: 'CONTAINER_RUNNING',
    });
    return id;
  };

  it('removes the objects of the given run and check only, even when the runtime ignores the selector', async () => {
    const mine = pod({ [RUN_LABEL]: 'r1', [CHECK_LABEL]: 'IDEM-01' });
    const otherCheck = pod({ [RUN_LABEL]: 'r1', [CHECK_LABEL]: 'IDEM-02' });
    const unlabelled = pod({ app: 'production' });
    // A runtime that ignores label selectors lists everything.
    fake.override('ListPodSandbox', () => ({ items: [...fake.pods.values()] }));
    const report = await removeLabelled(fake.client, { runId: 'r1', checkId: 'IDEM-01' });
    fake.override('ListPodSandbox', undefined);
    expect(report.pods).to.deep.equal([mine]);
    expect([...fake.pods.keys()].sort()).to.deep.equal([otherCheck, unlabelled].sort());
  });

  it('leaves alone a pod labelled cri-conform.io/run that lacks the namespace or the name prefix, and its container', async () => {
    const foreign = pod({ [RUN_LABEL]: 'x' }, { name: 'api-7d9', namespace: 'payments' });
    const prefixOnly = pod({ [RUN_LABEL]: 'x' }, { name: 'cc-api', namespace: 'payments' });
    const namespaceOnly = pod({ [RUN_LABEL]: 'x' }, { name: 'api', namespace: 'cri-conform' });
    const foreignContainer = container(foreign, { [RUN_LABEL]: 'x' });
    const mine = pod({ [RUN_LABEL]: 'x' });
    const mineContainer = container(mine, { [RUN_LABEL]: 'x' });
    const stopped: string[] = [];
    fake.override('StopPodSandbox', (req) => {
      stopped.push((req as { podSandboxId: string }).podSandboxId);
      return {};
    });
    const report = await removeLabelled(fake.client, {});
    expect(report.pods).to.deep.equal([mine]);
    expect(report.containers).to.deep.equal([mineContainer]);
    expect(stopped).to.deep.equal([mine]);
    expect([...fake.pods.keys()].sort()).to.deep.equal([foreign, prefixOnly, namespaceOnly].sort());
    expect([...fake.containers.keys()]).to.deep.equal([foreignContainer]);
    expect(report.spared).to.have.length(3);
    expect(report.spared.join('\n')).to.include(`pod payments/api-7d9 (${foreign})`);
  });

  it('treats NOT_FOUND on stop as done, and reports any other error as a problem', async () => {
    const gone = pod({ [RUN_LABEL]: 'r2' });
    fake.override('StopPodSandbox', () => {
      throw grpcError(Status.NOT_FOUND, 'already gone');
    });
    expect((await removeLabelled(fake.client, { runId: 'r2' })).pods).to.deep.equal([gone]);
    const stuck = pod({ [RUN_LABEL]: 'r3' });
    fake.override('StopPodSandbox', () => {
      throw grpcError(Status.UNAVAILABLE, 'busy');
    });
    const report = await removeLabelled(fake.client, { runId: 'r3' });
    expect(report.pods).to.deep.equal([]);
    expect(report.problems[0]).to.match(new RegExp(`pod ${stuck}: StopPodSandbox: UNAVAILABLE`));
  });

  it('removes one object at a time unless told how many at once, and then never more', async () => {
    const stopsAtOnce = async (run: string, atOnce?: number) => {
      const made = Array.from({ length: 7 }, () => pod({ [RUN_LABEL]: run }));
      let inFlight = 0;
      let most = 0;
      fake.override('StopPodSandbox', async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        return {};
      });
      const report = await removeLabelled(fake.client, { runId: run, ...(atOnce ? { atOnce } : {}) });
      expect(report.pods).to.have.members(made);
      return most;
    };
    expect(await stopsAtOnce('r11')).to.equal(1);
    expect(await stopsAtOnce('r12', 3)).to.equal(3);
  });

  it('stops retrying once aborted, after the round under way, and reports what is left', async () => {
    pod({ [RUN_LABEL]: 'r10' });
    let calls = 0;
    fake.override('StopPodSandbox', () => {
      calls++;
      throw grpcError(Status.UNKNOWN, `refused ${calls}`);
    });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    const started = Date.now();
    const report = await removeLabelledUntilGone(fake.client, { runId: 'r10' }, 60_000, 60_000, abort.signal);
    expect(Date.now() - started).to.be.below(2_000);
    expect(report.problems.join()).to.match(/refused/);
  });

  it('keeps trying while removal fails differently, and stops early on the same refusal again and again', async () => {
    pod({ [RUN_LABEL]: 'r9' });
    let calls = 0;
    fake.override('StopPodSandbox', () => {
      calls++;
      throw grpcError(Status.UNKNOWN, 'failed to remove network namespace');
    });
    const started = Date.now();
    const report = await removeLabelledUntilGone(fake.client, { runId: 'r9' }, 60_000, 400);
    expect(Date.now() - started).to.be.below(5_000);
    expect(calls).to.be.within(2, 20);
    expect(report.problems.join()).to.match(/failed to remove network namespace/);
  });
});
