// Stops and removes every pod of a throwaway containerd through CRI, so its network teardown runs (netns,
// IPAM) before the instance is killed. Only ever pointed at a containerd that containerd-up.sh made.
// Usage: node scripts/lib/remove-all-pods.mjs unix:///tmp/cri-conform/containerd-1.7/containerd.sock
import { CriClient } from '../../dist/src/cri/client.js';

const client = await CriClient.connect({ runtimeEndpoint: process.argv[2], connectTimeoutMs: 3_000 });
const opts = { deadlineMs: 30_000 };
const { items } = await client.call('ListPodSandbox', { filter: null }, opts);
for (const pod of items) {
  await client.call('StopPodSandbox', { podSandboxId: pod.id }, opts).catch(() => {});
  await client.call('RemovePodSandbox', { podSandboxId: pod.id }, opts).catch(() => {});
}
client.close();
process.stderr.write(`==> removed ${items.length} pods through CRI\n`);
