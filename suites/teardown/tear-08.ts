import {
  type CallOpts,
  type CheckContext,
  type ConfigFactory,
  defineCheck,
  type TrialSetup,
} from '../../src/harness/face.js';
import { describeEvents, receivedBy } from '../common/events.js';
import { tryHoldDuring } from '../common/holds.js';
import { LearntLateness } from '../common/learnt-lateness.js';
import { describeReply } from '../common/replies.js';
import { SharedPlugin } from '../common/shared-plugin.js';
import { deliveryWithinMs, HOLD_MARGIN_MS, NRI_TIMEOUT_CLEARANCE_MS } from '../common/timing.js';

/** How a path ends the RemovePodSandbox whose hook the plugin is running. */
interface Trigger {
  /** The path's name (t.path) and the step's text. */
  path: string;
  clause: 'kept-after-deadline' | 'kept-after-cancel';
  opts(hookMs: number, clientDeadlineMs: number, abort: AbortController): CallOpts;
  /** How long the hook is held, given the deadline paths' hook (with the lateness learnt). */
  holdMs(deadlineHookMs: number): number;
  /** Runs once the hook is running. */
  during(abort: AbortController): void;
}

/**
 * The ways a client gives up on a RemovePodSandbox while its hook runs, each a path with trials of its own:
 * a runtime that drops the plugin on one of them fails there, whatever the others showed.
 */
const TRIGGERS: readonly Trigger[] = [
  {
    // The request carries the deadline; the client cancels only later, so the runtime's own copy of the
    // deadline, not the client's cancel, is what ends the call (a kubelet under CPU pressure cancels late).
    path: 'expired deadline, the client cancelling late',
    clause: 'kept-after-deadline',
    opts: (hookMs, deadlineMs) => ({ deadlineMs, cancelLateByMs: Math.floor(hookMs / 4) }),
    holdMs: (deadlineHookMs) => deadlineHookMs,
    during: () => undefined,
  },
  {
    path: 'expired deadline, the client cancelling at it',
    clause: 'kept-after-deadline',
    opts: (_hookMs, deadlineMs) => ({ deadlineMs }),
    holdMs: (deadlineHookMs) => deadlineHookMs,
    during: () => undefined,
  },
  {
    // A cancel sent while the hook runs, far from any deadline, reaches the runtime as Canceled every time.
    path: 'the client cancelling mid-hook',
    clause: 'kept-after-cancel',
    opts: (_hookMs, _deadlineMs, abort) => ({ signal: abort.signal }),
    // The cancel leaves as the hook is reached and no deadline must expire in it, so the hook need outlast
    // the cancel only by the margin measured for a runtime to meet a cancelled call and drop the plugin.
    holdMs: () => HOLD_MARGIN_MS,
    during: (abort) => abort.abort(),
  },
];

/** Each path's two stopped pods: one removed during its hook, one removed after it, to see delivery. */
type Pods = { during: string; after: string }[];

export const check = defineCheck({
  id: 'TEAR-08',
  level: 'SHOULD',
  needs: ['nri', 'stalls-hooks', 'holds-in-lane'],
  // Whether the runtime's code sees an expired deadline as DeadlineExceeded or as Canceled can be decided by
  // its gRPC server's own timers: a runtime that drops the plugin on only one of them fails in a minority of
  // attempts, which --trials (20 by default) sees down to about 15% of them. Every trial takes every path.
  trials: true,
  title:
    "A plugin is not disconnected because the CRI client's deadline expired, or the client cancelled, while its hook ran within the plugin timeout",
  contract:
    'containerd/nri pkg/adaptation isFatalError: only a plugin timeout or a closed connection drops a plugin; NRI lifecycle contract (PR 286): a plugin within its request timeout is well-behaved',
  clauses: {
    'kept-after-deadline':
      "a plugin whose hook outlives the CRI client's deadline stays connected and keeps getting events",
    'kept-after-cancel':
      'a plugin whose hook the CRI client cancels stays connected and keeps getting events',
  },
  async run(t: CheckContext) {
    // The hook takes an eighth of the plugin timeout and the client gives up at half of that. A runtime that
    // drops the plugin for the expired call does so within a few ms of its answer, so the hook's second half
    // is ample to see it; longer hooks made the race show no more often (TEAR-08 in the README).
    const hookMs = Math.max(4, Math.floor(t.settings.nriRequestTimeoutMs / 8));
    /** Stopped pods, so that each RemovePodSandbox goes straight to its hook. */
    const stoppedPods = async (trial: number, make: ConfigFactory): Promise<Pods> => {
      const podOf = async (name: string) => {
        const podId = await t.cri.runPod(make.pod(`tear-08-${trial}-${name}`, { hostNetwork: true }));
        await t.cri.stopPod(podId);
        return podId;
      };
      return Promise.all(
        TRIGGERS.map(async (_, i) => {
          const [during, after] = await Promise.all([podOf(`${i}-during`), podOf(`${i}-after`)]);
          return { during, after };
        }),
      );
    };
    // One plugin 10 for every trial (shared-plugin.ts): a runtime that drops a plugin for an expired
    // deadline drops every plugin after it in that hook too, so plugins of trials side by side would fall
    // to each other's findings.
    const plugin = new SharedPlugin(t, { index: '10', events: ['RemovePodSandbox'] });
    // The hold grows with the lateness, and must end before the plugin timeout would.
    const late = new LearntLateness({
      floorMs: Math.floor(hookMs / 2),
      maxGuessedMs: t.settings.nriRequestTimeoutMs - NRI_TIMEOUT_CLEARANCE_MS - 2 * hookMs,
    });
    await t.trials(async (_trial, setup) => {
      for (const [i, trigger] of TRIGGERS.entries()) {
        const pods = setup.built[i];
        t.require(pods !== undefined, `no pods were built for path "${trigger.path}"`);
        const last = i === TRIGGERS.length - 1;
        await t.path(trigger.path, () =>
          keptThrough(t, plugin, trigger, { hookMs, late, pods, setup, last }),
        );
      }
    }, stoppedPods);
  },
});

/**
 * One path: RemovePodSandbox of a stopped pod whose hook takes hookMs and the lateness learnt, given up on
 * by the client as the trigger says. The plugin must stay connected for the rest of the hook and still get
 * the RemovePodSandbox of a pod removed after it. The whole path takes its turn among the trials
 * (t.oneAtATime): a runtime delivers hooks one at a time, so this hook must not wait behind another
 * trial's (the deadline would expire before it), and a drop seen in the path must be this path's doing.
 */
async function keptThrough(
  t: CheckContext,
  shared: SharedPlugin,
  trigger: Trigger,
  run: { hookMs: number; late: LearntLateness; pods: Pods[number]; setup: TrialSetup<Pods>; last: boolean },
): Promise<void> {
  const { late, pods } = run;
  const lateMs = late.ms;
  const hookMs = trigger.holdMs(run.hookMs + lateMs);
  const abort = new AbortController();
  const clientDeadlineMs = Math.floor(run.hookMs / 2) + lateMs;
  const opts = trigger.opts(run.hookMs, clientDeadlineMs, abort);
  const step =
    opts.deadlineMs === undefined
      ? `RemovePodSandbox cancelled by the client while its ${hookMs} ms hook runs`
      : `RemovePodSandbox with a ${clientDeadlineMs} ms deadline while the hook takes ${hookMs} ms, ${
          opts.cancelLateByMs === undefined
            ? 'the client cancelling at its deadline'
            : `the client's cancel held back until ${opts.cancelLateByMs} ms after it`
        }`;
  await t.oneAtATime('held RemovePodSandbox hook', async () => {
    // An earlier path's drop is that path's finding: this one starts from a registered plugin again.
    const plugin = await shared.connected();
    t.step(step);
    const sentAt = performance.now();
    const attempt = await tryHoldDuring(
      t,
      plugin,
      'RemovePodSandbox',
      { podId: pods.during },
      () => t.cri.tryCall('RemovePodSandbox', { podSandboxId: pods.during }, opts),
      { kind: 'delay', ms: hookMs },
    );
    if ('unreached' in attempt) {
      if (opts.deadlineMs !== undefined) late.missed(lateMs);
      t.missed(
        `RemovePodSandbox answered (${describeReply(attempt.unreached)}) before its hook ran (plugin 10 ${plugin.isConnected() ? 'connected' : 'disconnected'}): the path tested nothing`,
        late.ms > lateMs,
      );
    }
    late.reached(attempt.held.atMs - sentAt);
    trigger.during(abort);
    const reply = await attempt.reply;
    // The rest of the hook is the window: a runtime that drops the plugin for the ended call does so now,
    // mostly within a few ms of its answer. Past that, after the trial's last path, the trial only waits, so
    // the next trial's pods are built then (an unknown drop ends the trials, and would leave them unused).
    const hookLeftMs = () => Math.max(0, Math.round(attempt.held.atMs + hookMs - performance.now()));
    const soon = await plugin.waitDisconnected({ withinMs: Math.min(hookLeftMs(), hookMs / 10) });
    if (soon === undefined && run.last) run.setup.buildNext();
    const cause = soon ?? (await plugin.waitDisconnected({ withinMs: hookLeftMs() }));
    t.expect(
      cause === undefined,
      `plugin 10 was disconnected after ${step} (reply: ${describeReply(reply)}), during its ${hookMs} ms hook: ${cause?.message ?? ''}`,
      trigger.clause,
    );
    await t.cri.tryCall('RemovePodSandbox', { podSandboxId: pods.after });
    const got = await receivedBy(plugin, { podId: pods.after }, ['RemovePodSandbox'], deliveryWithinMs(t));
    t.expect(
      got.length > 0,
      `after ${step} (reply: ${describeReply(reply)}), plugin 10 got ${describeEvents([...plugin.events({ podId: pods.during }), ...plugin.events({ podId: pods.after })])}; missing RemovePodSandbox of a later pod: the runtime no longer delivers to it`,
      trigger.clause,
    );
  });
}
