import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createConfigFactory, kubeletShaped } from '../check/config-factory.js';
import { idsFileHeader, OwnIds } from '../core/own-ids.js';
import {
  claimRunLogs,
  deadRunsOwnIds,
  makeContainerLogDir,
  missingLogPath,
  OWN_IDS_FILE,
  ownIdsRecorder,
  POD_LOG_ROOT,
  RUN_OWNER_FILE,
  removeDeadRunLogs,
  removeRunLogs,
  runLogDirectory,
  runStillRunning,
} from './pod-logs.js';
import { currentOwner, parseOwner } from './run-owner.js';

describe('pod log paths: as the kubelet sends them, never empty', () => {
  const make = createConfigFactory('202611260600-abcdef', 'IDEM-01', {
    testImage: 'test:1',
    cgroupParent: '/cri-conform',
  });

  it('gives every pod a log directory of its own under the run’s directory, in the kubelet’s layout', () => {
    const pod = make.pod('p');
    expect(pod.logDirectory).to.equal(
      `${POD_LOG_ROOT}/202611260600-abcdef/cri-conform_${pod.metadata.name}_${pod.metadata.uid}`,
    );
    expect(missingLogPath('RunPodSandbox', { config: pod })).to.equal(undefined);
  });

  it('gives every container a log path, <name>/<attempt>.log, as the kubelet does', () => {
    expect(make.container('workload').logPath).to.equal('workload/0.log');
    expect(make.container('workload', { attempt: 2 }).logPath).to.equal('workload/2.log');
  });

  it('finds a request without a log directory or log path, which the tracked CRI then refuses to send', () => {
    const pod = { ...make.pod('p'), logDirectory: '' };
    expect(missingLogPath('RunPodSandbox', { config: pod })).to.match(/without a log directory/);
    expect(missingLogPath('CreateContainer', { config: { ...make.container('c'), logPath: '' } })).to.match(
      /without a log path/,
    );
    expect(missingLogPath('StopPodSandbox', { podSandboxId: 'x' })).to.equal(undefined);
  });

  it('makes the container’s log directory before CreateContainer, as the kubelet does (CRI-O does not)', () => {
    const root = mkdtempSync(join(tmpdir(), 'cc-podlogs-'));
    try {
      const sandboxConfig = { ...make.pod('p'), logDirectory: join(root, 'pod') };
      const request = { podSandboxId: 'id', config: make.container('workload'), sandboxConfig };
      makeContainerLogDir('StartContainer', request);
      expect(existsSync(join(root, 'pod'))).to.equal(false);
      makeContainerLogDir('CreateContainer', request);
      expect(existsSync(join(root, 'pod', 'workload'))).to.equal(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('keeps a run id a user typed inside the log root', () => {
    expect(runLogDirectory('../../etc')).to.equal(`${POD_LOG_ROOT}/______etc`);
    expect(runLogDirectory('')).to.equal(`${POD_LOG_ROOT}/_`);
  });

  it('labels a container with its pod’s name, namespace and UID, as the kubelet does', () => {
    const pod = make.pod('p');
    const request = kubeletShaped('CreateContainer', {
      podSandboxId: 'id',
      config: make.container('c'),
      sandboxConfig: pod,
    });
    expect(request.config.labels).to.include({
      'io.kubernetes.pod.name': pod.metadata.name,
      'io.kubernetes.pod.namespace': 'cri-conform',
      'io.kubernetes.pod.uid': pod.metadata.uid,
      'io.kubernetes.container.name': 'c',
      'cri-conform.io/check': 'IDEM-01',
    });
  });
});

/** The socket a run’s ids are of, as the files name it. */
const CONTAINERD = '/run/containerd/containerd.sock';

describe("pod log directories: a killed run's go, a running run's stay", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cc-pod-logs-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A run's log directory under the test root, with a pod's log in it and this owner file. */
  function runDir(name: string, owner: object | undefined): string {
    const dir = join(root, name);
    mkdirSync(join(dir, 'cri-conform_p_uid', 'workload'), { recursive: true });
    writeFileSync(join(dir, 'cri-conform_p_uid', 'workload', '0.log'), 'out\n');
    if (owner) writeFileSync(join(dir, RUN_OWNER_FILE), JSON.stringify(owner));
    return dir;
  }

  it('removes the directory of a run whose process is gone, or that holds pods with no owner file, and keeps a running one and one being made', () => {
    const me = currentOwner();
    const running = runDir('running', me);
    const killed = runDir('killed', { ...me, startTime: `${me.startTime}0` });
    const left = runDir('left-unowned', undefined);
    const beingMade = join(root, 'being-made');
    mkdirSync(beingMade);
    const found = removeDeadRunLogs(root);
    expect({ ...found, removed: found.removed.sort() }).to.deep.equal({
      removed: [killed, left],
      unowned: [beingMade],
      problems: [],
    });
    expect(readdirSync(root).sort()).to.deep.equal(['being-made', 'running']);
    expect(existsSync(join(running, RUN_OWNER_FILE))).to.equal(true);
  });

  it('gives cleanup the own ids a killed run recorded, and those a folder with no owner file holds, and none of a running run', () => {
    const me = currentOwner();
    const ids = (n: string) => [n.repeat(64), `${n.repeat(63)}f`];
    for (const [name, digit, owner] of [
      ['running', 'a', me],
      ['killed', 'b', { ...me, startTime: `${me.startTime}0` }],
      ['unowned', 'c', undefined],
    ] as const) {
      runDir(name, owner);
      writeFileSync(join(root, name, OWN_IDS_FILE), `${idsFileHeader(CONTAINERD)}${ids(digit).join('\n')}\n`);
    }
    expect(deadRunsOwnIds(undefined, root)).to.deep.equal(
      new Map([
        ['killed', { endpoint: CONTAINERD, ids: ids('b') }],
        ['unowned', { endpoint: CONTAINERD, ids: ids('c') }],
      ]),
    );
    expect([...deadRunsOwnIds('killed', root).keys()]).to.deep.equal(['killed']);
    expect(deadRunsOwnIds('running', root).size).to.equal(0);
  });

  it('records a run’s own ids as it learns them, the ones learnt before included', () => {
    const runId = `test-own-ids-${process.pid}`;
    try {
      claimRunLogs(runId);
      const ids = new OwnIds();
      const [early, late] = ['a'.repeat(64), 'b'.repeat(64)];
      ids.add([early]);
      ids.recordTo(ownIdsRecorder(runId, `unix://${CONTAINERD}`));
      ids.add([late, early]);
      const recorded = readFileSync(join(runLogDirectory(runId), OWN_IDS_FILE), 'utf8');
      expect(recorded).to.equal(`# endpoint ${CONTAINERD}\n${early}\n${late}\n`);
    } finally {
      removeRunLogs(runId);
    }
  });

  it('tells a run still running: its owner alive, or an empty folder it is making; not one whose owner is gone, nor a folder holding pods with no owner file', () => {
    const me = currentOwner();
    runDir('running', me);
    runDir('killed', { ...me, startTime: `${me.startTime}0` });
    runDir('left-unowned', undefined);
    mkdirSync(join(root, 'being-made'));
    const still = (name: string) => runStillRunning(name, root);
    expect(['running', 'killed', 'left-unowned', 'being-made', 'absent'].map(still)).to.deep.equal([
      true,
      false,
      false,
      true,
      false,
    ]);
  });

  it('finds nothing to do before any run made the root', () => {
    expect(removeDeadRunLogs(join(root, 'none'))).to.deep.equal({ removed: [], unowned: [], problems: [] });
  });

  it('gives a run its directory with an owner file naming this process, which the run removes at its end', () => {
    const runId = `test-claim-${process.pid}`;
    try {
      claimRunLogs(runId);
      expect(readdirSync(runLogDirectory(runId))).to.deep.equal([RUN_OWNER_FILE]);
      const owner = parseOwner(readFileSync(join(runLogDirectory(runId), RUN_OWNER_FILE), 'utf8'));
      expect(owner).to.deep.equal(currentOwner());
    } finally {
      expect(removeRunLogs(runId)).to.equal(undefined);
    }
    expect(existsSync(runLogDirectory(runId))).to.equal(false);
  });
});
