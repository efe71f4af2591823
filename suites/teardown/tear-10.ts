import { type CheckContext, defineCheck, notYet } from '../../src/harness/face.js';
import { describeExec, describeReply } from '../common/replies.js';

/**
 * Ignores TERM in any pid namespace mode (the trap is inherited by every `sleep` the loop starts), and
 * says so with a marker file once the trap is in place: a stop sent before that would kill the shell.
 */
const MARKER = '/tmp/term-ignored';
const TERM_IGNORING = ['sh', '-c', `trap "" TERM; : > ${MARKER}; while :; do sleep 1; done`];
const STOP_TIMEOUT_S = 1;

export const check = defineCheck({
  id: 'TEAR-10',
  level: 'MUST',
  title:
    'StopContainer on a container that ignores SIGTERM returns within its timeout plus a margin, and the container is EXITED',
  contract:
    'cri-api v0.32.3 api.proto StopContainer: "stops a running container with a grace period (i.e., timeout) ... forcibly kill the container after the grace period"',
  clauses: {
    bounded: 'StopContainer of a TERM-ignoring container returns OK within its timeout plus a margin',
    exited: 'the container is EXITED when StopContainer returns',
  },
  async run(t: CheckContext) {
    const { containerId } = await t.cri.runPodWithContainer('tear-10', { command: TERM_IGNORING });
    await t.poll(
      async () => {
        const r = await t.cri.call('ExecSync', { containerId, cmd: ['test', '-e', MARKER], timeout: '5' });
        return r.exitCode === 0 || notYet(`ExecSync test -e ${MARKER}: ${describeExec(r)}`);
      },
      { withinMs: t.settings.callTimeoutMs, what: `the workload to ignore TERM (${MARKER})` },
    );
    const boundMs = STOP_TIMEOUT_S * 1_000 + t.settings.marginMs;
    t.step(`StopContainer with timeout ${STOP_TIMEOUT_S} s`);
    const reply = await t.cri.tryCall(
      'StopContainer',
      { containerId, timeout: String(STOP_TIMEOUT_S) },
      { deadlineMs: boundMs + t.settings.marginMs, ignoresTerm: true },
    );
    t.observe('stop-latency-ms', Math.round(reply.latencyMs));
    t.expect(
      reply.ok && reply.latencyMs <= boundMs,
      `StopContainer(timeout ${STOP_TIMEOUT_S} s) on a TERM-ignoring container: ${describeReply(reply)}; bound ${boundMs} ms`,
      'bounded',
    );
    const status = await t.cri.containerStatus(containerId);
    // 137 (SIGKILL) is what runc reports, but the contract is the bound and the state; the marker already
    // proved that TERM was ignored, so the exit code is recorded, not judged.
    t.observe('exit-code', status.exitCode);
    t.expect(
      status.state === 'CONTAINER_EXITED',
      `after StopContainer returned, the container is ${status.state}, not CONTAINER_EXITED`,
      'exited',
    );
  },
});
