import { join } from 'node:path';
import { status as Status } from '@grpc/grpc-js';
import { expect } from 'chai';
import { type CallRecord, CriClient } from './client.js';
import { CriCallError } from './errors.js';
import { type Handler, type Running, socketDir, startCriServer } from './fake-cri.test.helper.js';
import type { PodSandboxConfig, VersionResponse } from './types.js';

const VERSION: VersionResponse = {
  version: '0.1.0',
  runtimeName: 'fake',
  runtimeVersion: '9.9',
  runtimeApiVersion: 'v1',
};

const POD: PodSandboxConfig = {
  metadata: { name: 'p', uid: 'u', namespace: 'ns', attempt: 1 },
  labels: { 'cri-conform.io/run': 'r1' },
  annotations: {},
  linux: { securityContext: { namespaceOptions: { network: 'NODE' } } },
};

describe('CriClient calls', () => {
  let tmp: ReturnType<typeof socketDir>;
  let server: Running;
  let image: Running | undefined;
  let client: CriClient;
  const records: CallRecord[] = [];
  const seen: unknown[] = [];

  const handlers: Record<string, Handler> = {
    Version: () => VERSION,
    RunPodSandbox: (req) => {
      seen.push(req);
      return { podSandboxId: 'pod-1' };
    },
    ListPodSandbox: () => ({
      items: [
        { id: 'pod-1', metadata: POD.metadata, state: 'SANDBOX_NOTREADY', createdAt: '1700000000000000001' },
      ],
    }),
    StopPodSandbox: () => new Promise(() => {}), // hangs: deadline and cancel tests
    RemovePodSandbox: () => {
      throw Object.assign(new Error('pod "x" not found'), { code: Status.NOT_FOUND });
    },
    ExecSync: () => ({ stdout: Buffer.alloc(6 * 1024 * 1024, 0x61), stderr: Buffer.alloc(0), exitCode: 3 }),
  };

  before(async () => {
    tmp = socketDir();
    server = await startCriServer(join(tmp.dir, 'cri.sock'), handlers);
    client = await CriClient.connect({
      runtimeEndpoint: server.socketPath,
      observer: (r) => records.push(r),
    });
  });
  after(async () => {
    client.close();
    await server.close();
    await image?.close();
    tmp.remove();
  });
  beforeEach(() => {
    records.length = 0;
  });

  it('keeps the Version reply it connected with', () => {
    expect(client.version).to.deep.equal(VERSION);
  });

  it('sends nested requests and decodes replies in the types.ts shapes', async () => {
    const reply = await client.call('RunPodSandbox', { config: POD, runtimeHandler: 'runc' });
    expect(reply).to.deep.equal({ podSandboxId: 'pod-1' });
    const got = seen.at(-1) as { config: PodSandboxConfig; runtimeHandler: string };
    expect(got.runtimeHandler).to.equal('runc');
    expect(got.config.metadata).to.deep.equal(POD.metadata);
    expect(got.config.labels).to.deep.equal(POD.labels);
    expect(got.config.linux?.securityContext?.namespaceOptions?.network).to.equal('NODE');

    const list = await client.call('ListPodSandbox', { filter: { labelSelector: { a: 'b' } } });
    expect(list.items[0]).to.include({
      id: 'pod-1',
      state: 'SANDBOX_NOTREADY',
      createdAt: '1700000000000000001',
    });
    expect(list.items[0]?.labels, 'defaults fill absent maps').to.deep.equal({});
  });

  it('receives replies above grpc-js default 4 MiB limit', async () => {
    const reply = await client.call('ExecSync', { containerId: 'c', cmd: ['true'], timeout: '1' });
    expect(reply.stdout.length).to.equal(6 * 1024 * 1024);
    expect(reply.exitCode).to.equal(3);
  });

  it('rejects a non-OK status with CriCallError and reports it to the observer', async () => {
    const err = await client
      .call('RemovePodSandbox', { podSandboxId: 'x' }, { deadlineMs: 2_000 })
      .catch((e) => e);
    expect(err).to.be.instanceOf(CriCallError).with.property('status', Status.NOT_FOUND);
    expect(err).to.include({
      code: 'ERR_CRI_CALL',
      method: 'RemovePodSandbox',
      statusName: 'NOT_FOUND',
      deadlineMs: 2_000,
    });
    expect(err.message).to.match(/^RemovePodSandbox: NOT_FOUND \(5\) after \d+\/2000 ms: pod "x" not found$/);
    expect(records).to.have.length(1);
    expect(records[0]).to.include({
      method: 'RemovePodSandbox',
      code: 5,
      statusName: 'NOT_FOUND',
      deadlineMs: 2_000,
    });
    expect(records[0]?.message).to.equal('pod "x" not found');
  });

  it('ends a hanging call with DEADLINE_EXCEEDED close to its deadline', async () => {
    const err = await client
      .call('StopPodSandbox', { podSandboxId: 'p' }, { deadlineMs: 200 })
      .catch((e) => e);
    expect(err).to.be.instanceOf(CriCallError).with.property('statusName', 'DEADLINE_EXCEEDED');
    expect(err.elapsedMs).to.be.within(190, 600);
    expect(records[0]).to.include({ statusName: 'DEADLINE_EXCEEDED', deadlineMs: 200 });
    expect(records[0]?.latencyMs).to.be.within(190, 600);
  });

  it('cancels a call when its signal aborts', async () => {
    const ac = new AbortController();
    const pending = client.call(
      'StopPodSandbox',
      { podSandboxId: 'p' },
      { deadlineMs: 10_000, signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 50);
    const err = await pending.catch((e) => e);
    expect(err).to.be.instanceOf(CriCallError).with.property('status', Status.CANCELLED);
    expect(err.elapsedMs).to.be.below(1_000);
    expect(records.map((r) => r.statusName)).to.deep.equal(['CANCELLED']);
  });

  it('cancels at once when the signal is already aborted', async () => {
    const err = await client
      .call('Version', { version: 'v1' }, { signal: AbortSignal.abort() })
      .catch((e) => e);
    expect(err).to.be.instanceOf(CriCallError).with.property('statusName', 'CANCELLED');
  });

  it('gives withObserver clients their own observer on the same channel', async () => {
    const mine: CallRecord[] = [];
    const scoped = client.withObserver((r) => mine.push(r));
    await scoped.call('Version', { version: 'v1' });
    await client.call('Version', { version: 'v1' });
    expect(mine.map((r) => r.method)).to.deep.equal(['Version']);
    expect(records.map((r) => r.method)).to.deep.equal(['Version']);
    expect(mine[0]?.request).to.deep.equal({ version: 'v1' });
    expect(mine[0]?.startedAt).to.be.a('number');
  });

  it("shows every call to an observer added with alsoObserved after the client's own, with the reply", async () => {
    const order: string[] = [];
    const replies: unknown[] = [];
    const scoped = client
      .withObserver(() => order.push('first'))
      .alsoObserved((r) => {
        order.push('second');
        replies.push(r.reply);
      });
    await scoped.call('Version', { version: 'v1' });
    expect(order).to.deep.equal(['first', 'second']);
    expect(replies[0]).to.have.property('runtimeApiVersion');
  });

  it('sends ImageService calls to a separate image endpoint', async () => {
    image = await startCriServer(join(tmp.dir, 'img.sock'), {
      ImageStatus: () => ({
        image: { id: 'sha256:1', repoTags: ['busybox:1'], repoDigests: [], size: '123' },
      }),
    });
    const split = await CriClient.connect({
      runtimeEndpoint: server.endpoint,
      imageEndpoint: image.endpoint,
    });
    try {
      const reply = await split.call('ImageStatus', { image: { image: 'busybox:1' }, verbose: false });
      expect(reply.image).to.deep.equal({
        id: 'sha256:1',
        repoTags: ['busybox:1'],
        repoDigests: [],
        size: '123',
        pinned: false,
      });
      const err = await client.call('ImageStatus', { image: { image: 'x' }, verbose: false }).catch((e) => e);
      expect(err, 'the runtime socket has no ImageService').to.have.property('statusName', 'UNIMPLEMENTED');
    } finally {
      split.close();
    }
  });
});
