/**
 * Two plugins against a real containerd (scripts/containerd-up.sh): 10 injects faults on StopPodSandbox,
 * 20 only records. Pods are driven through CRI with a throwaway grpc-js client on Debian's upstream CRI
 * proto. The runtime's reactions differ by version, so they are logged as observations; only what every
 * runtime must do is asserted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { expect } from 'chai';
import { NO_RUNTIME_REASON, runtimesUnderTest } from '../cli/e2e-env.test.helper.js';
import { skipBecause } from '../skip-reason.test.helper.js';
import { NriPlugin } from './plugin.js';
import type { NriEventName } from './types.js';

const CRI_PROTO = '/usr/share/gocode/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto';
// The runtime comes from the environment, or else from the first runtime .ci/run provisioned.
const provisioned = runtimesUnderTest()[0]?.env ?? {};
const NRI_SOCKET = process.env.CRI_CONFORM_NRI_SOCKET ?? provisioned.CRI_CONFORM_NRI_SOCKET;
const CRI_ENDPOINT = process.env.CONTAINER_RUNTIME_ENDPOINT ?? provisioned.CONTAINER_RUNTIME_ENDPOINT;
const RUN = `nri-it-${process.pid}-${Date.now()}`;
const EVENTS: NriEventName[] = [
  'RunPodSandbox',
  'StopPodSandbox',
  'RemovePodSandbox',
  'CreateContainer',
  'StartContainer',
  'StopContainer',
  'RemoveContainer',
];

type Res = Record<string, unknown>;
type UnaryFn = (
  req: object,
  md: grpc.Metadata,
  opts: grpc.CallOptions,
  cb: (err: grpc.ServiceError | null, res: Res) => void,
) => void;
interface CallOutcome {
  code: number;
  details: string;
  latencyMs: number;
  res: Res;
}

function criClients(): { runtime: grpc.Client; image: grpc.Client } {
  const def = protoLoader.loadSync(CRI_PROTO, {
    includeDirs: ['/usr/share/gocode/src'],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
  });
  const ns = grpc.loadPackageDefinition(def) as unknown as {
    runtime: { v1: Record<string, grpc.ServiceClientConstructor> };
  };
  const target = CRI_ENDPOINT?.startsWith('/') ? `unix://${CRI_ENDPOINT}` : (CRI_ENDPOINT ?? '');
  const make = (svc: string) =>
    new (ns.runtime.v1[svc] as grpc.ServiceClientConstructor)(target, grpc.credentials.createInsecure());
  return { runtime: make('RuntimeService'), image: make('ImageService') };
}

function cri(client: grpc.Client, method: string, req: object, deadlineMs = 30_000): Promise<CallOutcome> {
  const fn = (client as unknown as Record<string, UnaryFn>)[method] as UnaryFn;
  const started = performance.now();
  return new Promise((resolve) => {
    fn.call(client, req, new grpc.Metadata(), { deadline: Date.now() + deadlineMs }, (err, res) => {
      resolve({
        code: err?.code ?? 0,
        details: err?.details ?? '',
        latencyMs: Math.round(performance.now() - started),
        res: res ?? {},
      });
    });
  });
}

async function ok(client: grpc.Client, method: string, req: object): Promise<Res> {
  const r = await cri(client, method, req);
  if (r.code !== 0) throw new Error(`${method}: code ${r.code} ${r.details}`);
  return r.res;
}

describe('NRI plugins against a real containerd', function () {
  this.timeout(120_000);
  let clients: ReturnType<typeof criClients>;
  let image = '';
  let logDir = '';
  const plugins: NriPlugin[] = [];
  const observations: Record<string, unknown> = {};

  const startPlugin = async (index: string) => {
    const p = await NriPlugin.start({
      socketPath: NRI_SOCKET ?? '',
      name: `cc-it-${index}`,
      index,
      events: EVENTS,
      acceptsPod: (pod) => pod.labels['cri-conform.io/run'] === RUN,
    });
    plugins.push(p);
    return p;
  };

  async function runPodWithContainer(
    name: string,
  ): Promise<{ podId: string; ctrId: string; config: object }> {
    const config = {
      metadata: { name, uid: `${name}-uid`, namespace: 'cri-conform', attempt: 0 },
      labels: { 'cri-conform.io/run': RUN },
      log_directory: logDir,
      linux: { security_context: { namespace_options: { network: 'NODE' } } },
    };
    const { pod_sandbox_id: podId } = (await ok(clients.runtime, 'RunPodSandbox', { config })) as {
      pod_sandbox_id: string;
    };
    const ctr = {
      metadata: { name: 'main', attempt: 0 },
      image: { image },
      command: ['sleep', '3600'],
      log_path: `${name}.log`,
      labels: { 'cri-conform.io/run': RUN },
    };
    const { container_id: ctrId } = (await ok(clients.runtime, 'CreateContainer', {
      pod_sandbox_id: podId,
      config: ctr,
      sandbox_config: config,
    })) as { container_id: string };
    await ok(clients.runtime, 'StartContainer', { container_id: ctrId });
    await ok(clients.runtime, 'StopContainer', { container_id: ctrId, timeout: 1 });
    await ok(clients.runtime, 'RemoveContainer', { container_id: ctrId });
    return { podId, ctrId, config };
  }

  before(async function () {
    if (!NRI_SOCKET || !CRI_ENDPOINT) {
      if (process.env.CI === 'true') throw new Error('CI=true but no containerd with NRI was provisioned');
      skipBecause(this, NO_RUNTIME_REASON);
    }
    clients = criClients();
    logDir = await mkdtemp(join(tmpdir(), 'cc-logs-'));
    const version = await ok(clients.runtime, 'Version', { version: 'v1' });
    observations.runtime = `${String(version.runtime_name)} ${String(version.runtime_version)}`;
    const images = (await ok(clients.image, 'ListImages', {})) as { images: { repo_tags: string[] }[] };
    const tags = images.images.flatMap((i) => i.repo_tags);
    // The provisioned test image, else a busybox; never the pause image, which has no sleep.
    image =
      process.env.CRI_CONFORM_TEST_IMAGE ??
      provisioned.CRI_CONFORM_TEST_IMAGE ??
      tags.find((t) => /busybox/.test(t)) ??
      '';
    if (!image) throw new Error(`no test image: set CRI_CONFORM_TEST_IMAGE (images: ${tags.join(', ')})`);
  });

  after(async () => {
    await Promise.all(plugins.map((p) => p.close()));
    if (logDir) await rm(logDir, { recursive: true, force: true });
    console.log(`containerd NRI observations: ${JSON.stringify(observations, null, 2)}`);
  });

  it('delivers every event of our pod to both plugins, 10 before 20', async () => {
    const p10 = await startPlugin('10');
    const p20 = await startPlugin('20');
    observations.nri = {
      nriVersion: p10.runtime.nriVersion,
      requestTimeoutMs: p10.runtime.requestTimeoutMs,
      subscribed: p10.subscribed,
    };
    const { podId } = await runPodWithContainer('nri-it-order');
    await ok(clients.runtime, 'StopPodSandbox', { pod_sandbox_id: podId });
    await ok(clients.runtime, 'RemovePodSandbox', { pod_sandbox_id: podId });
    await p20.events.waitFor({ event: 'RemovePodSandbox', podId }, { withinMs: 5000, what: 'Remove at 20' });
    const seen = (p: NriPlugin) => p.events.all({ podId }).map((e) => `${e.event}/${e.via}`);
    observations.received = { '10': seen(p10), '20': seen(p20) };
    observations.timeoutMs = p10.events.find({ podId })?.timeoutMs;
    for (const e of p20.events.all({ podId })) {
      const first = p10.events.find({ podId, event: e.event });
      expect(first && first.seq < e.seq, `${e.event} at 10 first`).to.equal(true);
    }
  });

  it('observes how an error injected on StopPodSandbox surfaces', async () => {
    const [p10, p20] = plugins as [NriPlugin, NriPlugin];
    const { podId } = await runPodWithContainer('nri-it-error');
    const fault = p10.addFault({
      match: { event: 'StopPodSandbox', podId },
      action: { kind: 'error', message: 'cri-conform injected error' },
    });
    const stop = await cri(clients.runtime, 'StopPodSandbox', { pod_sandbox_id: podId });
    fault.remove();
    const retry = await cri(clients.runtime, 'StopPodSandbox', { pod_sandbox_id: podId });
    await ok(clients.runtime, 'RemovePodSandbox', { pod_sandbox_id: podId });
    observations.error = {
      stop: { code: stop.code, details: stop.details, latencyMs: stop.latencyMs },
      retry: { code: retry.code, latencyMs: retry.latencyMs },
      stopEventsAt10: p10.events.count({ podId, event: 'StopPodSandbox' }),
      stopEventsAt20: p20.events.count({ podId, event: 'StopPodSandbox' }),
      p10Connected: p10.isConnected(),
    };
    expect(fault.hits).to.equal(1);
  });

  it('observes how a hang injected on StopPodSandbox surfaces', async () => {
    const [p10, p20] = plugins as [NriPlugin, NriPlugin];
    const { podId } = await runPodWithContainer('nri-it-hang');
    p10.addFault({ match: { event: 'StopPodSandbox', podId }, action: { kind: 'hang' } });
    const stop = await cri(clients.runtime, 'StopPodSandbox', { pod_sandbox_id: podId });
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      p10.closed.then((c) => c?.message ?? 'closed by us'),
      new Promise<string>((r) => (timer = setTimeout(() => r('still open'), 5000))),
    ]);
    clearTimeout(timer);
    const remove = await cri(clients.runtime, 'RemovePodSandbox', { pod_sandbox_id: podId });
    observations.hang = {
      stop: { code: stop.code, details: stop.details, latencyMs: stop.latencyMs },
      p10AfterStop: closed,
      stopEventsAt20: p20.events.count({ podId, event: 'StopPodSandbox' }),
      remove: { code: remove.code, latencyMs: remove.latencyMs },
    };
    const again = await startPlugin('10');
    observations.reRegistered = again.isConnected();
    expect(again.isConnected()).to.equal(true);
  });
});
