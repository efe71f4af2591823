/**
 * deploy/sonobuoy/*.yaml against what Sonobuoy v0.57 reads (pkg/plugin/manifest/manifest.go) and what the
 * worker reads. Sonobuoy ignores unknown keys silently (a stale `result-type` quietly gives raw results),
 * so every key is checked here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse, parseAllDocuments } from 'yaml';
import { POD_LOG_ROOT_AS_ROOT } from '../../harness/host/pod-logs.js';
import { SHARED_WITH_NODE } from '../../instance/host-view.js';
import { INSTANCE_ROOTS } from '../../instance/instance-roots.js';
import { NETWORK_CLAIMS } from '../../instance/network.js';
import { ROOT } from '../e2e-env.test.helper.js';
import { JUNIT_FILE } from './results-dir.js';
import { DEFAULT_HOST_ROOT, envNameFor, FLEET_FLAGS } from './worker-env.js';

const PLUGIN_FILE = join(ROOT, 'deploy/sonobuoy/cri-conform.yaml');
const DAEMONSET_FILE = join(ROOT, 'deploy/sonobuoy/cri-conform-daemonset.yaml');

// Restated from manifest.go (json tags of Manifest and SonobuoyConfig), so a typo here cannot hide one there.
const MANIFEST_KEYS = ['sonobuoy-config', 'spec', 'extra-volumes', 'podSpec', 'config-map'];
const CONFIG_KEYS = [
  'driver',
  'plugin-name',
  'skip-cleanup',
  'result-format',
  'result-files',
  'description',
  'source-url',
  'order',
];
const WORKER_ENV = new Set([
  ...FLEET_FLAGS.map(envNameFor),
  'NODE_NAME',
  'CRI_CONFORM_HOST_ROOT',
  'SONOBUOY_RESULTS_DIR',
  'SONOBUOY_PROGRESS_PORT',
]);

type Doc = Record<string, unknown>;
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath?: string } };
}

const obj = (v: unknown): Doc => (v !== null && typeof v === 'object' ? (v as Doc) : {});

/** Everything wrong with a plugin document, one line each. */
function pluginFileProblems(doc: Doc): string[] {
  const problems: string[] = [];
  const unknown = (where: string, o: Doc, known: string[]) => {
    for (const k of Object.keys(o)) if (!known.includes(k)) problems.push(`${where}: unknown key ${k}`);
  };
  unknown('top level', doc, MANIFEST_KEYS);
  const config = obj(doc['sonobuoy-config']);
  unknown('sonobuoy-config', config, CONFIG_KEYS);
  if (config.driver !== 'DaemonSet') problems.push('driver is not DaemonSet');
  if (config['plugin-name'] !== 'cri-conform') problems.push('plugin-name is not cri-conform');
  if (config['result-format'] !== 'junit') problems.push('result-format is not junit');
  if (!(config['result-files'] as unknown[] | undefined)?.includes(JUNIT_FILE))
    problems.push(`result-files does not name ${JUNIT_FILE}`);
  const spec = obj(doc.spec);
  problems.push(...containerProblems(spec));
  const volumes = (doc['extra-volumes'] as Doc[] | undefined) ?? [];
  for (const [name, path] of [
    ['host-run', '/run'],
    ['host-var-run', '/var/run'],
    ['cri-conform-run', SHARED_WITH_NODE],
  ] as const) {
    if (!volumes.some((v) => v.name === name && obj(v.hostPath).path === path))
      problems.push(`extra-volumes: no hostPath ${path} named ${name}`);
  }
  const pod = obj(doc.podSpec);
  if (obj(pod.nodeSelector)['kubernetes.io/os'] !== 'linux') problems.push('podSpec: no linux nodeSelector');
  // A blanket toleration would put the pod on every node, the control plane's included: an opt-in.
  if (((pod.tolerations as Doc[] | undefined) ?? []).some((t) => t.operator === 'Exists' && !t.key))
    problems.push('podSpec: a toleration {operator: Exists} of every taint');
  problems.push(...hostNamespaceProblems('podSpec', pod));
  return problems;
}

/** Only unix sockets are needed: the host's network would put the sidecar's :8099 on the node. */
function hostNamespaceProblems(where: string, pod: Doc): string[] {
  return ['hostNetwork', 'hostIPC'].filter((k) => pod[k] === true).map((k) => `${where}: ${k}`);
}

function containerProblems(spec: Doc): string[] {
  const problems: string[] = [];
  if (obj(spec.securityContext).privileged !== true) problems.push('spec: not privileged');
  const env = (spec.env as EnvVar[] | undefined) ?? [];
  const names = env.map((e) => e.name);
  for (const n of names) if (!WORKER_ENV.has(n)) problems.push(`spec.env: the worker does not read ${n}`);
  for (const flag of FLEET_FLAGS) {
    if (!names.includes(envNameFor(flag))) problems.push(`spec.env: no ${envNameFor(flag)} (--${flag})`);
  }
  const node = env.find((e) => e.name === 'NODE_NAME');
  if (node?.valueFrom?.fieldRef?.fieldPath !== 'spec.nodeName')
    problems.push('spec.env: NODE_NAME is not fieldRef spec.nodeName');
  const mounts = (spec.volumeMounts as Doc[] | undefined) ?? [];
  for (const path of ['/run', '/var/run']) {
    if (!mounts.some((m) => m.mountPath === `${DEFAULT_HOST_ROOT}${path}`))
      problems.push(`spec.volumeMounts: host ${path} is not at ${DEFAULT_HOST_ROOT}${path}`);
  }
  // The private instance runs on the host, and the runtime writes the checks' logs there: the worker
  // reaches both at the host's paths.
  if (!mounts.some((m) => m.name === 'cri-conform-run' && m.mountPath === SHARED_WITH_NODE && !m.readOnly))
    problems.push(`spec.volumeMounts: the host's ${SHARED_WITH_NODE} is not mounted writable at its path`);
  return problems;
}

describe('the Sonobuoy plugin file', () => {
  const doc = parse(readFileSync(PLUGIN_FILE, 'utf8')) as Doc;

  it('uses only keys Sonobuoy reads, asks for JUnit from a privileged DaemonSet on every untainted Linux node', () => {
    expect(pluginFileProblems(doc)).to.deep.equal([]);
  });

  it("mounts every folder of private instances, their network claims and the pod logs at the host's paths", () => {
    const spec = obj(doc.spec);
    const volumes = new Map(
      ((doc['extra-volumes'] as Doc[] | undefined) ?? []).map((v) => [v.name, obj(v.hostPath).path]),
    );
    const sameOnBoth = ((spec.volumeMounts as Doc[] | undefined) ?? [])
      .filter((m) => !m.readOnly && volumes.get(m.name) === m.mountPath)
      .map((m) => String(m.mountPath));
    for (const dir of [...INSTANCE_ROOTS, NETWORK_CLAIMS, POD_LOG_ROOT_AS_ROOT])
      expect(
        sameOnBoth.some((m) => dir === m || dir.startsWith(`${m}/`)),
        `${dir} in ${sameOnBoth}`,
      ).to.equal(true);
    expect(NETWORK_CLAIMS.startsWith(`${SHARED_WITH_NODE}/`)).to.equal(true);
  });

  it('would catch the stale result-type key of the older docs', () => {
    const stale = structuredClone(doc);
    const config = obj(stale['sonobuoy-config']);
    config['result-type'] = config['result-format'];
    delete config['result-format'];
    expect(pluginFileProblems(stale)).to.deep.equal([
      'sonobuoy-config: unknown key result-type',
      'result-format is not junit',
    ]);
  });

  it("would catch the host's network namespace, whose port 8099 other DaemonSet plugins use too", () => {
    const hostNet = structuredClone(doc);
    obj(hostNet.podSpec).hostNetwork = true;
    expect(pluginFileProblems(hostNet)).to.deep.equal(['podSpec: hostNetwork']);
  });

  it('would catch a misspelled worker variable', () => {
    const typo = structuredClone(doc);
    (obj(typo.spec).env as EnvVar[]).push({ name: 'CRI_CONFORM_LEVLE', value: 'all' });
    expect(pluginFileProblems(typo)).to.deep.equal(['spec.env: the worker does not read CRI_CONFORM_LEVLE']);
  });
});

describe('the plain DaemonSet manifest', () => {
  const docs = parseAllDocuments(readFileSync(DAEMONSET_FILE, 'utf8')).map((d) => d.toJS() as Doc);
  const ds = docs.find((d) => d.kind === 'DaemonSet') ?? {};
  const pod = obj(obj(obj(ds.spec).template).spec);
  const container = obj((pod.containers as Doc[] | undefined)?.[0]);

  it('runs the same worker, with results on a hostPath and no progress port', () => {
    const plugin = obj((parse(readFileSync(PLUGIN_FILE, 'utf8')) as Doc).spec);
    expect(container.image).to.equal(plugin.image);
    expect(container.args).to.deep.equal(plugin.args);
    const env = (container.env as EnvVar[]).map((e) => [e.name, e.value]);
    for (const [name] of env) expect(WORKER_ENV.has(name ?? ''), `${name} is read`).to.equal(true);
    expect(env).to.deep.include(['SONOBUOY_PROGRESS_PORT', '0']);
    const results = (container.volumeMounts as Doc[]).find((m) => m.name === 'results');
    expect(env).to.deep.include(['SONOBUOY_RESULTS_DIR', results?.mountPath]);
    const volume = (pod.volumes as Doc[]).find((v) => v.name === 'results');
    expect(obj(volume?.hostPath).path).to.equal('/var/lib/cri-conform/results');
    expect(obj(pod.nodeSelector)['kubernetes.io/os']).to.equal('linux');
    expect(hostNamespaceProblems('pod', pod)).to.deep.equal([]);
  });

  it('lets Pod Security admission accept the privileged pod in its namespace', () => {
    const namespace = docs.find((d) => d.kind === 'Namespace') ?? {};
    expect(obj(obj(namespace.metadata).labels)['pod-security.kubernetes.io/enforce']).to.equal('privileged');
  });
});
