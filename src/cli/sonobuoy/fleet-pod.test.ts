/**
 * The fleet pod's privileges, reviewed against what the README states it needs ("What the fleet pod may do,
 * and why"): every field Pod Security's baseline or restricted level would refuse is listed here with the
 * reason, and the manifests may ask for those and nothing else. Also what keeps it least privileged
 * otherwise: no API token, requests and limits, and a grace period that covers the worst-case end of a run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse, parseAllDocuments } from 'yaml';
import { WIND_DOWN_MS } from '../../harness/runtime-instance.js';
import { REMOVAL_WITHIN_MS } from '../../instance/removal.js';
import { ROOT } from '../e2e-env.test.helper.js';

type Doc = Record<string, unknown>;
const obj = (v: unknown): Doc => (v !== null && typeof v === 'object' ? (v as Doc) : {});

/** What the README states the pod needs, each a field Pod Security's baseline or restricted refuses. */
const STATED = [
  'privileged', // mounts, network namespaces, bridges and cgroups of the private instance on the node
  'hostPID', // the node daemon's /proc/<pid>/root and namespaces, nsenter into them, its own shims' pids
  'runAsUser 0', // the CRI and NRI sockets are root:root 0660
  'hostPath /run (read-only)', // the runtime's CRI socket
  'hostPath /var/run (read-only)', // the NRI socket and CRI-O's socket
  'hostPath /run/cri-conform', // the private instance and the checks' logs, at the node's own paths
  'hostPath /var/lib/cri-conform/isolated', // the instance where /run cannot execute it or hold its images
];
/** Sonobuoy gives results an emptyDir; the plain DaemonSet keeps them on the node. */
const DAEMONSET_RESULTS = 'hostPath /var/lib/cri-conform/results';
/** Writing the reports after the removal (JUnit, JSON, HTML, `done`), at most. */
const REPORTS_MS = 10_000;

/** Every privileged field of a pod spec and its container, as Pod Security's levels name them. */
function privilegesOf(pod: Doc, container: Doc, volumes: Doc[]): string[] {
  const found: string[] = [];
  for (const k of ['hostPID', 'hostIPC', 'hostNetwork']) if (pod[k] === true) found.push(k);
  const security = obj(container.securityContext);
  if (security.privileged === true) found.push('privileged');
  if (security.runAsUser === 0 || security.runAsNonRoot === false) found.push('runAsUser 0');
  if ((obj(security.capabilities).add as unknown[] | undefined)?.length) found.push('capabilities.add');
  for (const k of ['procMount', 'seLinuxOptions', 'appArmorProfile', 'seccompProfile'])
    if (security[k] !== undefined) found.push(k);
  if (obj(pod.securityContext).sysctls !== undefined) found.push('sysctls');
  const ports = (container.ports as Doc[] | undefined) ?? [];
  if (ports.some((p) => p.hostPort !== undefined)) found.push('hostPort');
  const mounts = (container.volumeMounts as Doc[] | undefined) ?? [];
  for (const v of volumes.filter((v) => v.hostPath !== undefined)) {
    const readOnly = mounts.some((m) => m.name === v.name && m.readOnly === true);
    found.push(`hostPath ${obj(v.hostPath).path}${readOnly ? ' (read-only)' : ''}`);
  }
  return found;
}

function leastPrivilegeProblems(pod: Doc, container: Doc): string[] {
  const problems: string[] = [];
  if (pod.automountServiceAccountToken !== false) problems.push('an API token is mounted');
  if (pod.serviceAccountName === 'sonobuoy-serviceaccount') problems.push("Sonobuoy's cluster-admin account");
  const resources = obj(container.resources);
  for (const k of ['cpu', 'memory']) {
    if (obj(resources.requests)[k] === undefined) problems.push(`no ${k} request`);
    if (obj(resources.limits)[k] === undefined) problems.push(`no ${k} limit`);
  }
  const worstEndS = Math.ceil((WIND_DOWN_MS + REMOVAL_WITHIN_MS + REPORTS_MS) / 1000);
  if (typeof pod.terminationGracePeriodSeconds !== 'number' || pod.terminationGracePeriodSeconds < worstEndS)
    problems.push(`terminationGracePeriodSeconds under the ${worstEndS} s a run's end may take`);
  if (((pod.tolerations as Doc[] | undefined) ?? []).length > 0) problems.push('tolerations by default');
  return problems;
}

describe('the fleet pod: the privileges it states, and no more', () => {
  const plugin = parse(readFileSync(join(ROOT, 'deploy/sonobuoy/cri-conform.yaml'), 'utf8')) as Doc;
  const docs = parseAllDocuments(
    readFileSync(join(ROOT, 'deploy/sonobuoy/cri-conform-daemonset.yaml'), 'utf8'),
  );
  const all = docs.map((d) => d.toJS() as Doc);
  const dsPod = obj(obj(obj(all.find((d) => d.kind === 'DaemonSet')?.spec).template).spec);
  const dsContainer = obj((dsPod.containers as Doc[] | undefined)?.[0]);

  it('asks, as a Sonobuoy plugin, for exactly the privileges the README states', () => {
    const volumes = (plugin['extra-volumes'] as Doc[] | undefined) ?? [];
    expect(privilegesOf(obj(plugin.podSpec), obj(plugin.spec), volumes)).to.have.members(STATED);
    expect(leastPrivilegeProblems(obj(plugin.podSpec), obj(plugin.spec))).to.deep.equal([]);
  });

  it('asks, as a plain DaemonSet, for the same and its results directory, with an account of its own', () => {
    const volumes = (dsPod.volumes as Doc[] | undefined) ?? [];
    const privileges = privilegesOf(dsPod, dsContainer, volumes);
    expect(privileges).to.have.members([...STATED, DAEMONSET_RESULTS]);
    expect(leastPrivilegeProblems(dsPod, dsContainer)).to.deep.equal([]);
    const account = all.find((d) => d.kind === 'ServiceAccount');
    expect(obj(account?.metadata).name).to.equal(dsPod.serviceAccountName);
    expect(account?.automountServiceAccountToken).to.equal(false);
    expect(
      all.some((d) => String(d.kind).includes('Binding')),
      'a role binding',
    ).to.equal(false);
  });

  it('would catch a mounted token, a missing limit, a short grace period and a blanket toleration', () => {
    const pod = {
      ...obj(plugin.podSpec),
      automountServiceAccountToken: undefined,
      terminationGracePeriodSeconds: 30,
    };
    const container = { ...obj(plugin.spec), resources: { requests: { cpu: '1', memory: '1Gi' } } };
    expect(
      leastPrivilegeProblems({ ...pod, tolerations: [{ operator: 'Exists' }] }, container),
    ).to.deep.equal([
      'an API token is mounted',
      'no cpu limit',
      'no memory limit',
      "terminationGracePeriodSeconds under the 85 s a run's end may take",
      'tolerations by default',
    ]);
  });

  it('would catch a privilege nobody stated', () => {
    const container = obj(plugin.spec);
    const added = {
      ...container,
      securityContext: { ...obj(container.securityContext), capabilities: { add: ['SYS_ADMIN'] } },
    };
    expect(privilegesOf({ ...obj(plugin.podSpec), hostNetwork: true }, added, [])).to.include.members([
      'hostNetwork',
      'capabilities.add',
    ]);
  });
});
