/**
 * A tiny in-memory CRI runtime on the fake CRI server, for unit tests of the harness: pods and containers
 * with labels (label selectors honoured), and per-method overrides so a test can make one call fail, hang
 * or answer late. Also builds the RunEnv a check runs in, with NRI and host probes unavailable.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { status as Status } from '@grpc/grpc-js';
import { CriClient } from '../../cri/client.js';
import {
  type Handler,
  type RecordsServed,
  type Running,
  socketDir,
  startCriServer,
} from '../../cri/fake-cri.test.helper.js';
import { MARGIN_MS } from '../core/settings.js';
import type { SuiteName } from '../core/vocabulary.js';
import { runLogDirectory } from '../host/pod-logs.js';
import { RegistrationGate } from '../injectors/registration-gate.js';
import type { RunEnv } from '../run/run-env.js';
import type { Check, CheckSpec } from './check.js';
import { inSuite } from './check.js';
import type { HostProbe } from './context.js';
import { Sequence } from './timeline.js';

interface Labelled {
  id: string;
  metadata: { name: string; attempt: number; uid?: string; namespace?: string };
  labels: Record<string, string>;
  state: string;
}

interface FakeContainer extends Labelled {
  podSandboxId: string;
}

export interface FakeRuntime {
  client: CriClient;
  endpoint: string;
  pods: Map<string, Labelled>;
  containers: Map<string, FakeContainer>;
  /** Replaces one method's behaviour; `undefined` puts the in-memory one back. */
  override(method: string, handler: Handler | undefined): void;
  /** Adds a pod as if the runtime had published it itself (a late duplicate). */
  publish(pod: Omit<Labelled, 'id'>): string;
  close(): Promise<void>;
}

/** A gRPC error the fake server answers with. */
export function grpcError(code: Status, details: string): Error {
  return Object.assign(new Error(details), { code, details });
}

let nextId = 0;
const newId = () => (++nextId).toString(16).padStart(64, '0');

interface ListFilter {
  labelSelector?: Record<string, string>;
  state?: { state: string } | null;
}

function matches(item: Labelled, filter: ListFilter | null): boolean {
  const selector = filter?.labelSelector ?? {};
  const state = filter?.state?.state;
  return (
    Object.entries(selector).every(([k, v]) => item.labels[k] === v) &&
    (state === undefined || item.state === state)
  );
}

/** @param opts.containerdRecords also serve containerd's own record lists, empty (startCriServer) */
export async function startFakeRuntime(
  opts: { containerdRecords?: RecordsServed } = {},
): Promise<FakeRuntime> {
  const tmp = socketDir();
  const pods = new Map<string, Labelled>();
  const containers = new Map<string, FakeContainer>();
  const overrides = new Map<string, Handler>();
  const missing = (what: string) => grpcError(Status.NOT_FOUND, `${what} not found`);
  const own: Record<string, Handler> = {
    Version: () => ({
      version: '0.1.0',
      runtimeName: 'fake',
      runtimeVersion: '1.0',
      runtimeApiVersion: 'v1',
    }),
    RunPodSandbox: (req) => {
      const { config } = req as { config: Omit<Labelled, 'id' | 'state'> };
      const id = newId();
      pods.set(id, { id, metadata: config.metadata, labels: config.labels, state: 'SANDBOX_READY' });
      return { podSandboxId: id };
    },
    PodSandboxStatus: (req) => {
      const pod = pods.get((req as { podSandboxId: string }).podSandboxId);
      if (!pod) throw missing('sandbox');
      return { status: { id: pod.id, metadata: pod.metadata, state: pod.state, labels: pod.labels } };
    },
    ListPodSandbox: (req) => ({
      items: [...pods.values()].filter((p) => matches(p, (req as { filter: null }).filter)),
    }),
    StopPodSandbox: (req) => {
      const pod = pods.get((req as { podSandboxId: string }).podSandboxId);
      if (pod) pod.state = 'SANDBOX_NOTREADY';
      for (const c of containers.values()) if (c.podSandboxId === pod?.id) c.state = 'CONTAINER_EXITED';
      return {};
    },
    RemovePodSandbox: (req) => {
      pods.delete((req as { podSandboxId: string }).podSandboxId);
      return {};
    },
    ListContainers: (req) => ({
      containers: [...containers.values()].filter((c) => matches(c, (req as { filter: null }).filter)),
    }),
    CreateContainer: (req) => {
      const { podSandboxId, config } = req as {
        podSandboxId: string;
        config: Omit<Labelled, 'id' | 'state'>;
      };
      if (!pods.has(podSandboxId)) throw missing('sandbox');
      const id = newId();
      containers.set(id, {
        id,
        podSandboxId,
        metadata: config.metadata,
        labels: config.labels,
        state: 'CONTAINER_CREATED',
      });
      return { containerId: id };
    },
    StartContainer: (req) => {
      const container = containers.get((req as { containerId: string }).containerId);
      if (!container) throw missing('container');
      container.state = 'CONTAINER_RUNNING';
      return {};
    },
    ContainerStatus: (req) => {
      const c = containers.get((req as { containerId: string }).containerId);
      if (!c) throw missing('container');
      return { status: { id: c.id, metadata: c.metadata, state: c.state, labels: c.labels, exitCode: 0 } };
    },
    /** Every command succeeds silently unless a test overrides it. */
    ExecSync: () => ({ stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 0 }),
    StopContainer: (req) => {
      const container = containers.get((req as { containerId: string }).containerId);
      if (container) container.state = 'CONTAINER_EXITED';
      return {};
    },
    Status: () => ({
      status: { conditions: [{ type: 'RuntimeReady', status: true, reason: '', message: '' }] },
      runtimeHandlers: [],
    }),
    ImageStatus: () => ({ image: { id: 'sha256:fake', repoTags: ['test:1'] } }),
    PullImage: () => ({ imageRef: 'sha256:fake' }),
    RemoveContainer: (req) => {
      containers.delete((req as { containerId: string }).containerId);
      return {};
    },
  };
  const handlers: Record<string, Handler> = {};
  for (const method of Object.keys(own)) {
    handlers[method] = (req, call) => (overrides.get(method) ?? own[method])?.(req, call);
  }
  const server: Running = await startCriServer(join(tmp.dir, 'cri.sock'), handlers, opts);
  const client = await CriClient.connect({ runtimeEndpoint: server.endpoint });
  return {
    client,
    endpoint: server.endpoint,
    pods,
    containers,
    override: (method, handler) => (handler ? overrides.set(method, handler) : overrides.delete(method)),
    publish: (pod) => {
      const id = newId();
      pods.set(id, { id, ...pod });
      return id;
    },
    close: async () => {
      client.close();
      await server.close();
      tmp.remove();
      // The tracked CRI makes each container's log directory, as the kubelet does, on this machine.
      rmSync(runLogDirectory(UNIT_RUN_ID), { recursive: true, force: true });
    },
  };
}

const UNIT_RUN_ID = 'unit-run';

/** The environment a check runs in against the fake runtime. */
export function fakeEnv(
  client: CriClient,
  opts: {
    trials?: number;
    parallelTrials?: number;
    signal?: AbortSignal;
    knownDeviation?: RunEnv['knownDeviation'];
  } = {},
): RunEnv {
  return {
    ...(opts.knownDeviation ? { knownDeviation: opts.knownDeviation } : {}),
    runId: UNIT_RUN_ID,
    client,
    sequence: new Sequence(),
    registrations: new RegistrationGate(),
    settings: {
      nriRequestTimeoutMs: 2_000,
      nriRequestTimeoutFrom: '--nri-request-timeout',
      marginMs: MARGIN_MS,
      trials: opts.trials ?? 3,
      parallelTrials: opts.parallelTrials ?? 1,
      cacheTtlMs: 5_000,
      runtimeHandler: '',
      testImage: 'test:1',
      pauseImage: 'pause:1',
      restartTimeoutMs: 1_000,
      callTimeoutMs: 2_000,
      cgroupParent: '/cri-conform',
    },
    injectors: {},
    nri: { unavailable: 'no NRI in unit tests' },
    host: { unavailable: 'no host probes in unit tests' },
    signal: opts.signal ?? new AbortController().signal,
  };
}

/** A check record for a test: MUST, no tags, no needs, unless the spec says otherwise. */
export function testCheck(
  run: CheckSpec['run'],
  spec: Partial<CheckSpec> = {},
  suite: SuiteName = 'idempotency',
): Check {
  const [check] = inSuite(suite, [
    {
      id: 'UNIT-01',
      level: 'MUST',
      title: 'a unit-test check',
      contract: 'unit test',
      clauses: { unit: 'the unit test holds' },
      run,
      ...spec,
    },
  ]);
  if (!check) throw new Error('inSuite returned nothing');
  return check;
}

/** A host probe that is there but answers nothing: a test overrides what it asks, and anything else throws. */
export function unusedHost(): HostProbe {
  const unused = (): never => {
    throw new Error('not used');
  };
  return {
    available: true,
    snapshot: unused,
    leftovers: unused,
    stillHeld: unused,
    netnsKind: unused,
    baseline: unused,
    netnsOwners: unused,
    recordIds: unused,
    newLeftovers: unused,
  };
}
