import { expect } from 'chai';
import { createConfigFactory, kubeletShaped } from './config-factory.js';
import { missingLogPath, POD_LOG_ROOT, runLogDirectory } from './pod-logs.js';

describe('pod log paths: as the kubelet sends them, never empty', () => {
  const make = createConfigFactory('202611260600-abcdef', 'IDEM-01', 'test:1');

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
