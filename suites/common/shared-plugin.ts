/**
 * One NRI plugin for all the trials of a check that hold hooks. A plugin of each trial would not do: a
 * runtime that takes an expired CRI deadline for a broken plugin (containerd 1.7) sends the rest of that
 * hook's plugins the same expired context and drops each of them too, so one trial's deadline would drop
 * the plugins of the trials beside it. The holds take turns (t.oneAtATime), so the one plugin serves one
 * hold at a time, and whoever finds it dropped registers it again before holding (inside the lane, where
 * the drop it finds is an earlier trial's doing). A check with a single hold in the lane uses one too: the
 * drop it finds is then another lane check's doing.
 */
import type { CheckContext, NriEventName, TestPlugin } from '../../src/harness/face.js';

export class SharedPlugin {
  private plugin: Promise<TestPlugin> | undefined;

  constructor(
    private readonly t: CheckContext,
    private readonly opts: { index: string; events: readonly NriEventName[] },
  ) {}

  /** The plugin, registered (again, if the runtime dropped it) for the caller's hold. */
  async connected(): Promise<TestPlugin> {
    this.plugin ??= this.t.nri.plugin({ ...this.opts, forAllTrials: true });
    const plugin = await this.plugin;
    if (!plugin.isConnected()) {
      this.t.step(`plugin ${plugin.label} registers again: the runtime dropped it in an earlier hold`);
      await plugin.reconnect();
    }
    return plugin;
  }

  /**
   * What the runtime said of itself when the plugin last registered. Registers it only if it never was:
   * reading this is no reason to register a dropped plugin again.
   */
  async runtime(): Promise<TestPlugin['runtime']> {
    return (await (this.plugin ?? this.connected())).runtime;
  }
}
