import {
  type CallResult,
  type CheckContext,
  defineCheck,
  describeLeaks,
  type FaultHandle,
  shortId,
  type TestPlugin,
} from '../../src/harness/face.js';
import { tryHoldDuring } from '../common/holds.js';
import { describeReply } from '../common/replies.js';
import { SharedPlugin } from '../common/shared-plugin.js';
import { TrialEvidence } from '../common/trial-leftovers.js';
import { finishTeardown } from './leaks.js';

/** Plugin 10 must see a creation hook before plugin 20 fails it; HOOK-07 is the check for that order. */
const OUT_OF_ORDER =
  'plugin 20 failed the creation before plugin 10 saw its hook, so nothing half-made could be snapshotted: plugins are not called in index order (see HOOK-07)';

const REFUSE = { kind: 'error', message: 'cri-conform TEAR-14: this plugin refuses the creation' } as const;

/**
 * The call answered before plugin 10 got the hook it was to hold. A runtime that had dropped plugin 10 (it
 * may give up on a plugin) left the scenario out by chance: the trial runs again, and plugin 10 registers
 * again. A plugin 20 that got the hook first skips the check: HOOK-07 judges the order. A call that
 * answered before either plugin saw its hook brought about no scenario at all.
 */
async function unheld(
  t: CheckContext,
  holder: TestPlugin,
  refusal: FaultHandle,
  event: string,
  reply: CallResult<unknown>,
): Promise<never> {
  const refused = await refusal.reached({ withinMs: 0 }).then(
    () => true,
    () => false,
  );
  refusal.remove();
  if (!holder.isConnected())
    t.missed(`the runtime dropped plugin ${holder.label} before it got the ${event} hook`);
  if (refused) t.skip(OUT_OF_ORDER);
  t.require(false, `${event} answered (${describeReply(reply)}) before either plugin got its hook`);
}

/** The contract lets a runtime go on despite a plugin's error ("may" fail the creation): an observation. */
function ignoredError(t: CheckContext, trial: number, call: string): void {
  t.observe(
    `trial ${trial} ${call} despite a plugin error`,
    'succeeded: the runtime ignored the plugin error',
  );
}

/**
 * The CNI-failure variant: the slow CNI fails ADD after setting the network up; the failed sandbox must
 * leave nothing, found by diffing the host (no hook holds it, so there is no snapshot of the half-made pod).
 */
async function cniFailure(t: CheckContext, trial: number): Promise<void> {
  const cni = t.inject.slowCni();
  const seen = await TrialEvidence.start(t);
  await cni.setFail(true);
  const config = t.make.pod(`tear-14-${trial}-cni`);
  const ran = await t.cri.tryRunPod(config);
  await cni.setFail(false);
  await seen.fromInjectors({ added: cni.added });
  // A sandbox whose network setup failed is not ready, whatever the runtime says: the kubelet would run
  // the pod's containers without their network.
  t.expect(
    !ran.ok,
    `RunPodSandbox returned OK (${describeReply(ran)}) although the CNI ADD of its network failed`,
    'cni-failure-fails',
  );
  const listed = await t.cri.listPods({ name: config.metadata.name });
  t.expect(
    listed.length === 0,
    `the sandbox whose CNI ADD failed is still listed (${describeReply(ran)})`,
    'sandbox-cni-failure',
  );
  const leaks = await seen.leftovers();
  t.expect(
    leaks === '',
    `after RunPodSandbox failed in CNI ADD (${describeReply(ran)}), the host still holds ${leaks}`,
    'sandbox-cni-failure',
  );
}

/**
 * Plugin 10 holds a creation, plugin 20 then fails it. One of each for every trial (shared-plugin.ts), each
 * registered again inside the hold's turn where a runtime dropped it.
 */
interface Plugins {
  holder: SharedPlugin;
  refuser: SharedPlugin;
}

/** Plugin 20 fails RunPodSandbox while plugin 10 holds it: the failed sandbox must leave nothing. */
async function refusedSandbox(t: CheckContext, trial: number, plugins: Plugins): Promise<void> {
  // Each path has its own baseline: what an earlier path left is no leak of this one.
  const seen = await TrialEvidence.start(t);
  const podConfig = t.make.pod(`tear-14-${trial}-refused`);
  const podName = podConfig.metadata.name;
  // The hold takes its turn among the trials: the runtime delivers hooks one at a time. The turn ends with
  // the hold: the refusal and the rollback after it hold no hook, so the next trial's hold need not wait
  // for them.
  const held = await t.oneAtATime('held RunPodSandbox hook', async () => {
    const [holder, refuser] = [await plugins.holder.connected(), await plugins.refuser.connected()];
    const refusal = refuser.fault({ match: { event: 'RunPodSandbox', podName }, action: REFUSE });
    const run = await tryHoldDuring(t, holder, 'RunPodSandbox', { podName }, () =>
      t.cri.tryRunPod(podConfig),
    );
    if ('unreached' in run) return unheld(t, holder, refusal, 'RunPodSandbox', run.unreached);
    const podSnapshot = await t.host.snapshot(run.held.pod.id);
    seen.add(run.held.pod.id);
    await seen.look();
    run.hold.release();
    return { podSnapshot, reply: run.reply };
  });
  const { podSnapshot } = held;
  const ran = await held.reply;
  if (ran.ok) {
    ignoredError(t, trial, 'RunPodSandbox');
    // Gone before the next path, whose leak probe would otherwise find this live pod.
    const removed = await finishTeardown(t, ran.value);
    t.expect(
      removed === '',
      `removing the pod the runtime made despite the plugin error failed: ${removed}`,
      'sandbox-plugin-error',
    );
    return;
  }
  const listed = await t.cri.listPods({ name: podName });
  // The reply says how the creation failed, so that a known cause (the plugin's refusal) can be named.
  t.expect(
    listed.length === 0,
    `the failed sandbox is still listed: ${listed.map((p) => `${shortId(p.id)}/${p.state}`).join(', ')} (RunPodSandbox: ${describeReply(ran)})`,
    'sandbox-plugin-error',
  );
  // Both looks wait out slow reaping before they call a process a leak: wait once, not twice.
  const [snapshotLeaks, trialLeaks] = await Promise.all([t.host.leftovers(podSnapshot), seen.leaks()]);
  const podLeaks = describeLeaks([...snapshotLeaks, ...trialLeaks]);
  t.expect(
    podLeaks === '',
    `after RunPodSandbox failed in a plugin, the host still holds ${podLeaks}`,
    'sandbox-plugin-error',
  );
}

/** Plugin 20 fails CreateContainer while plugin 10 holds it: once its pod is removed, nothing is left. */
async function refusedContainer(t: CheckContext, trial: number, plugins: Plugins): Promise<void> {
  const seen = await TrialEvidence.start(t);
  const hostConfig = t.make.pod(`tear-14-${trial}-host`);
  const podId = await t.cri.runPod(hostConfig);
  const config = t.make.container('refused');
  const held = await t.oneAtATime('held CreateContainer hook', async () => {
    const [holder, refuser] = [await plugins.holder.connected(), await plugins.refuser.connected()];
    const refusal = refuser.fault({ match: { event: 'CreateContainer', podId }, action: REFUSE });
    const create = await tryHoldDuring(t, holder, 'CreateContainer', { podId }, () =>
      t.cri.tryCall('CreateContainer', { podSandboxId: podId, config, sandboxConfig: hostConfig }),
    );
    if ('unreached' in create) return unheld(t, holder, refusal, 'CreateContainer', create.unreached);
    const ctrId = create.held.container?.id ?? '';
    const ctrSnapshot = await t.host.snapshot(podId, ctrId === '' ? [] : [ctrId]);
    seen.add(podId, ctrId);
    create.hold.release();
    return { ctrSnapshot, reply: create.reply };
  });
  const { ctrSnapshot } = held;
  const created = await held.reply;
  if (created.ok) ignoredError(t, trial, 'CreateContainer');
  else {
    const ctrs = await t.cri.listContainers({ podId });
    t.expect(
      ctrs.length === 0,
      `the failed container is still listed: ${ctrs.map((c) => `${c.name}/${c.state}`).join(', ')}`,
      'container-plugin-error',
    );
  }
  const failed = await finishTeardown(t, podId);
  t.expect(
    failed === '',
    `removing the pod of the failed container failed: ${failed}`,
    'container-plugin-error',
  );
  const [snapshotLeaks, trialLeaks] = await Promise.all([t.host.leftovers(ctrSnapshot), seen.leaks()]);
  const ctrLeaks = describeLeaks([...snapshotLeaks, ...trialLeaks]);
  t.expect(
    ctrLeaks === '',
    `after CreateContainer ${created.ok ? 'went through' : 'failed in a plugin'} and its pod was removed, the host still holds ${ctrLeaks}`,
    'container-plugin-error',
  );
}

export const check = defineCheck({
  id: 'TEAR-14',
  level: 'MUST',
  tags: ['Node'],
  // Its holds take turns in the hook lane; the CNI failure is the trial's own (its injector claim).
  needs: ['nri', 'stalls-hooks', 'holds-in-lane'],
  uses: ['slow-cni'],
  trials: {
    scale: 2,
    why: '--trials of plugin errors (each with a sandbox and a container path) and --trials of CNI failures, taken in turns where the run offers the slow CNI',
  },
  title:
    "A sandbox or container whose creation failed (a plugin error on its Run hook, a CNI failure) leaves nothing behind: not in CRI, not on the host, not in the runtime's own records",
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286): a plugin may fail RunPodSandbox and CreateContainer, and a runtime that fails the creation rolls it back; kubelet PodResourcesAreReclaimed; checks.md TEAR-14 (CNI failure)',
  clauses: {
    'sandbox-cni-failure': 'a sandbox whose CNI ADD failed is not listed and leaves nothing on the host',
    'cni-failure-fails': 'a RunPodSandbox whose CNI ADD failed fails',
    'sandbox-plugin-error':
      'a sandbox whose Run hook a plugin failed is not listed and leaves nothing on the host',
    'container-plugin-error':
      'a container whose CreateContainer hook a plugin failed is not listed, and once its pod is removed nothing is left',
  },
  async run(t: CheckContext) {
    // Even trials fail the creation in CNI where the run offers the slow CNI, the others in a plugin.
    const cni = t.inject.offers('slow-cni');
    if (cni !== undefined) t.observe('CNI failure variant', `not run: ${cni}`);
    const events = ['RunPodSandbox', 'CreateContainer'] as const;
    const plugins = {
      holder: new SharedPlugin(t, { index: '10', events }),
      refuser: new SharedPlugin(t, { index: '20', events }),
    };
    await t.trials(async (trial) => {
      if (cni === undefined && trial % 2 === 0) {
        return t.path('sandbox: CNI failure', () => cniFailure(t, trial));
      }
      // Plugin 10 holds the hook long enough to snapshot the half-made object; plugin 20 then fails it.

      await t.path('sandbox: plugin error', () => refusedSandbox(t, trial, plugins));
      await t.path('container: plugin error', () => refusedContainer(t, trial, plugins));
    });
  },
});
