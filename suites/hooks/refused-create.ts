/**
 * HOOK-10/11: a CreateContainer the runtime must refuse (the sandbox is missing or stopped) fails and never
 * reaches a plugin.
 */
import {
  type CheckContext,
  type PodSandboxConfig,
  shortId,
  type TestPlugin,
} from '../../src/harness/face.js';
import { describeEvents, noneArrive } from '../common/events.js';
import { quietWindowMs } from '../common/timing.js';

export interface RefusedTarget {
  /** How messages name the sandbox: "a removed sandbox". */
  what: string;
  podSandboxId: string;
}

export async function expectCreateRefusedUnseen(
  t: CheckContext,
  plugin: TestPlugin,
  sandboxConfig: PodSandboxConfig,
  targets: readonly RefusedTarget[],
  clauses: { refused: string; unseen: string },
): Promise<void> {
  // The event of a wrongly relayed request may carry an empty or unknown pod: watch the ids targeted.
  t.nri.watchIds(targets.map((x) => x.podSandboxId));
  for (const [i, target] of targets.entries()) {
    t.step(`CreateContainer into ${target.what}`);
    const reply = await t.cri.tryCall('CreateContainer', {
      podSandboxId: target.podSandboxId,
      config: t.make.container(`refused-${i}`),
      sandboxConfig,
    });
    t.expect(
      !reply.ok,
      `CreateContainer into ${target.what} (${shortId(target.podSandboxId)}) succeeded: container ${reply.ok ? shortId(reply.value.containerId) : ''}`,
      clauses.refused,
    );
  }
  const quiet = await noneArrive(t, plugin, { event: 'CreateContainer' }, quietWindowMs(t), clauses.unseen);
  t.expect(
    quiet,
    `plugin ${plugin.label} got ${describeEvents(plugin.events({ event: 'CreateContainer' }))} for CreateContainer calls into ${targets.map((x) => x.what).join(' and ')}`,
    clauses.unseen,
  );
}
