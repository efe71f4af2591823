import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { describeReply } from '../common/replies.js';
import { expectReclaimed } from './leaks.js';

/**
 * Ignores TERM, double-forks an orphan (`sleep 3601`, re-parented to the pid namespace's init) and turns
 * into a process that never reaps its child (`sleep 0` stays a zombie under `sleep 3602`). The odd
 * durations tell these processes from the pause image's own sleeps.
 */
const UNRULY = ['sh', '-c', 'trap "" TERM; (sleep 3601 &); sleep 0 & exec sleep 3602'];
const GRACE_S = 1;

export const check = defineCheck({
  id: 'TEAR-12',
  level: 'MUST',
  tags: ['Node'],
  title:
    'A container that ignores SIGTERM, leaves an orphan that holds its output and a zombie child still stops within its grace period plus a margin, is EXITED when StopContainer returns, and tears down completely: the host holds nothing of the pod',
  contract:
    'kubelet PodResourcesAreReclaimed (pkg/kubelet/kubelet_pods.go); cri-api v0.32.3 api.proto StopContainer "forcibly kill the container after the grace period", StopPodSandbox "stops any running process that is part of the sandbox"',
  clauses: {
    bounded:
      'StopContainer returns OK within the grace period plus a margin despite an orphan holding the output',
    exited: 'when StopContainer has answered OK, the container is EXITED',
    reclaimed: 'after the stop and the pod teardown the host holds nothing of the pod',
  },
  async run(t: CheckContext) {
    const { podId, containerId } = await t.cri.runPodWithContainer('tear-12', { command: UNRULY });
    // One plain look first: off the node this skips the check instead of timing out the poll below.
    await t.host.snapshot(podId, [containerId]);
    const snapshot = await t.poll(
      async () => {
        const s = await t.host.snapshot(podId, [containerId]);
        const cmds = s.processes.map((p) => p.cmdline);
        return cmds.some((c) => c.includes('sleep 3601')) && cmds.some((c) => c.includes('sleep 3602')) && s;
      },
      {
        withinMs: t.settings.callTimeoutMs,
        what: 'the orphan (sleep 3601) and the non-reaping parent (sleep 3602) to run',
      },
    );
    t.step(`StopContainer with a ${GRACE_S} s grace period, then StopPodSandbox and RemovePodSandbox`);
    // The orphan inherited the container's stdout and stderr: a runtime that waits for every holder of the
    // output to close hangs here, and only the pod's stop would end that.
    const boundMs = GRACE_S * 1_000 + t.settings.marginMs;
    const stop = await t.cri.tryCall(
      'StopContainer',
      { containerId, timeout: String(GRACE_S) },
      { deadlineMs: boundMs + t.settings.marginMs, ignoresTerm: true },
    );
    t.observe('stop-latency-ms', Math.round(stop.latencyMs));
    const stopProblem =
      stop.ok && stop.latencyMs <= boundMs
        ? ''
        : `StopContainer (grace period ${GRACE_S} s) with an orphan holding the container's output: ${describeReply(stop)}; bound ${boundMs} ms`;
    // A stop that answers OK has stopped the container: one still running when the call returns would
    // leave the kubelet believing a workload is gone that still runs (until its pod stops, if ever).
    const after = stop.ok ? await t.cri.containerStateOrGone(containerId) : 'CONTAINER_EXITED';
    // The host is judged whatever StopContainer did: a leak is a finding of its own.
    await expectReclaimed(
      t,
      snapshot,
      `after StopContainer${stopProblem || after !== 'CONTAINER_EXITED' ? ` (${describeReply(stop)})` : ''}, StopPodSandbox and RemovePodSandbox`,
      'reclaimed',
    );
    t.expect(stopProblem === '', stopProblem, 'bounded');
    t.expect(
      after === 'CONTAINER_EXITED',
      `StopContainer (grace period ${GRACE_S} s) answered ${describeReply(stop)}, but then the container is ${after}, not CONTAINER_EXITED`,
      'exited',
    );
  },
});
