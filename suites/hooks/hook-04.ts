import {
  type CheckContext,
  compareVersions,
  defineCheck,
  type NriEventRecord,
  type PodSandboxStatus,
} from '../../src/harness/face.js';
import { receivedBy } from '../common/events.js';
import { lookWhileRunHookHeld } from '../common/holds.js';
import { describeReply } from '../common/replies.js';
import { SharedPlugin } from '../common/shared-plugin.js';
import { deliveryWithinMs } from '../common/timing.js';
import { expectNetnsAt } from './netns.js';

/** The first NRI version whose PodSandbox message carries the pod's IPs. */
const NRI_WITH_POD_IPS = 'v0.8.0';

export const check = defineCheck({
  id: 'HOOK-04',
  level: 'MUST',
  needs: ['nri', 'stalls-hooks', 'holds-in-lane'],
  title:
    'At RunPodSandbox hook time the network is set up: the netns named in the event is a network namespace, and the pod IPs of the status are in the event',
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286): RunPodSandbox fires after the pod network namespace and CNI networks are set up',
  clauses: {
    netns: 'the RunPodSandbox event names the pod network namespace, which is a namespace at hook time',
    ips: 'the pod IPs of the status are in the RunPodSandbox event',
  },
  async run(t: CheckContext) {
    const plugin = new SharedPlugin(t, { index: '10', events: ['RunPodSandbox', 'StopPodSandbox'] });
    // The netns is probed while the hook is still held: that is the moment the contract speaks of.
    const { held, seen, reply } = await lookWhileRunHookHeld(
      t,
      plugin,
      t.make.pod('hook-04'),
      'netns',
      async (held) => {
        t.expect(
          held.pod.netnsPath !== '',
          `RunPodSandbox#${held.seq} for a pod with its own network named no network namespace (namespaces without type "network")`,
          'netns',
        );
        return expectNetnsAt(
          t,
          held.pod.netnsPath,
          `RunPodSandbox#${held.seq}`,
          'while the hook ran',
          'netns',
        );
      },
    );
    const untested = [seen];
    const done = await reply;
    t.expect(done.ok, `after release RunPodSandbox failed: ${describeReply(done)}`, 'ips');

    const statusIps = ipsOf(await t.cri.podStatus(done.value));
    t.observe('event-ips', held.pod.ips.join(',') || '(none)');
    t.observe('status-ips', statusIps.join(',') || '(none)');
    const unknown = held.pod.ips.filter((ip) => statusIps.length > 0 && !statusIps.includes(ip));
    t.expect(
      unknown.length === 0,
      `RunPodSandbox#${held.seq} named IPs ${held.pod.ips.join(', ')}, but PodSandboxStatus reports ${statusIps.join(', ')}`,
      'ips',
    );
    const carries = statusIps.length === 0 ? 'no' : await podEventsCarryIps(t, plugin, done.value);
    t.observe('pod-events-carry-ips', carries);
    if (statusIps.length === 0)
      untested.push('PodSandboxStatus reports no pod IP, so whether CNI ran before the hook cannot be seen');
    else if (carries === 'no')
      untested.push(
        `this runtime's pod events carry no IPs (NRI ${(await plugin.runtime()).nriVersion}; its pods' Stop events carry none either), so whether CNI ran before the hook cannot be seen`,
      );
    else expectIpsInEvent(t, held, statusIps, carries);
    const reasons = untested.filter(Boolean);
    // A PASS would claim the network was checked at hook time; the part that held is in the timeline.
    if (reasons.length > 0) t.skip(`the main point could not be tested: ${reasons.join('; ')}`);
  },
});

function expectIpsInEvent(
  t: CheckContext,
  held: NriEventRecord,
  statusIps: readonly string[],
  carries: string,
): void {
  const missing = statusIps.filter((ip) => !held.pod.ips.includes(ip));
  t.expect(
    missing.length === 0,
    `RunPodSandbox#${held.seq} carried IPs [${held.pod.ips.join(', ')}], but PodSandboxStatus reports ${statusIps.join(', ')} and this runtime's pod events carry IPs (${carries}): the hook ran before CNI set the network up`,
    'ips',
  );
}

function ipsOf(status: PodSandboxStatus): string[] {
  const ips = [status.network?.ip ?? '', ...(status.network?.additionalIps ?? []).map((a) => a.ip)];
  return ips.filter((ip) => ip !== '');
}

/**
 * Whether this runtime fills the pod IPs of NRI events: its NRI version says so (0.8 and later), or a
 * later event of the same pod carries them. Unknown NRI versions (a runtime outside the version table)
 * are decided by the Stop event. Returns the reason, or 'no'.
 */
async function podEventsCarryIps(t: CheckContext, shared: SharedPlugin, podId: string): Promise<string> {
  const { nriVersion } = await shared.runtime();
  if (compareVersions(nriVersion, NRI_WITH_POD_IPS) >= 0) return `NRI ${nriVersion}`;
  t.step(`NRI version ${nriVersion}: stop the pod to see whether its Stop event carries IPs`);
  // In a turn of the hook lane, so that no other check's hold gets the plugin dropped before the event.
  const got = await t.oneAtATime('StopPodSandbox event', async () => {
    const plugin = await shared.connected();
    await t.cri.stopPod(podId);
    return receivedBy(plugin, { podId }, ['StopPodSandbox'], deliveryWithinMs(t));
  });
  const stop: NriEventRecord | undefined = got.find((e) => e.event === 'StopPodSandbox');
  return stop && stop.pod.ips.length > 0
    ? `StopPodSandbox#${stop.seq} carried ${stop.pod.ips.join(', ')}`
    : 'no';
}
