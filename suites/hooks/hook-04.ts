import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { runPodWithHeldRunHook } from '../common/holds.js';
import { describeReply } from '../common/replies.js';

export const check = defineCheck({
  id: 'HOOK-04',
  level: 'MUST',
  needs: ['nri'],
  title:
    'At RunPodSandbox hook time the network is set up: the netns named in the event exists, and the pod IP is in the event or the later status',
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286): RunPodSandbox fires after the pod network namespace and CNI networks are set up',
  async run(t: CheckContext) {
    const { held, hold, reply } = await runPodWithHeldRunHook(t, 'hook-04');
    const netns = held.pod.netnsPath;
    const netnsExisted = netns !== '' && t.host.netnsExists(netns);
    hold.release();
    const done = await reply;

    t.expect(
      netns !== '',
      `RunPodSandbox#${held.seq} for a pod with its own network named no network namespace (namespaces without type "network")`,
    );
    t.expect(
      netnsExisted,
      `RunPodSandbox#${held.seq} named netns ${netns}, which did not exist while the hook ran`,
    );
    t.expect(done.ok, `after release RunPodSandbox failed: ${describeReply(done)}`);

    const status = await t.cri.podStatus(done.value);
    const statusIps = [
      status.network?.ip ?? '',
      ...(status.network?.additionalIps ?? []).map((a) => a.ip),
    ].filter((ip) => ip !== '');
    t.observe('event-ips', held.pod.ips.join(',') || '(none)');
    t.observe('status-ips', statusIps.join(',') || '(none)');
    const unknown = held.pod.ips.filter((ip) => statusIps.length > 0 && !statusIps.includes(ip));
    t.expect(
      unknown.length === 0,
      `RunPodSandbox#${held.seq} named IPs ${held.pod.ips.join(', ')}, but PodSandboxStatus reports ${statusIps.join(', ')}`,
    );
  },
});
