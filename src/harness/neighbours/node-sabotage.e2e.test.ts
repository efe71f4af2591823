/**
 * The [Node] checks cannot fail on the reference runtime (it runs no processes), so they are shown able to
 * fail here: each runs against real containerd while the test sabotages the pod's teardown just before
 * StopPodSandbox, in the two ways a real leak looks. A process that names the pod (as a leaked shim does)
 * survives it, or a mount under the pod's id stays. The check must fail and name the leak.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { expect } from 'chai';
import { NO_RUNTIME_REASON, runInProcess, runtimesUnderTest } from '../../cli/e2e-env.test.helper.js';
import type { CriMethod } from '../../cri/types.js';
import { describeSkipped } from '../../skip-reason.test.helper.js';
import type { CheckResult } from '../check/result.js';

const NODE_CHECKS = '^(TEAR-11|TEAR-12|TEAR-13) ';

interface Sabotage {
  name: string;
  leak: RegExp;
  apply(podId: string): void;
  undo(): void;
}

function leakedShim(): Sabotage {
  const children: ChildProcess[] = [];
  return {
    name: 'a process naming the pod outlives its teardown',
    leak: /process: pid \d+/,
    apply(podId) {
      const child = spawn('sleep', ['300'], {
        argv0: `containerd-shim-runc-v2 -id ${podId} cri-conform-sabotage`,
        detached: true,
        stdio: 'ignore',
      });
      child.unref();
      children.push(child);
    },
    undo: () => {
      for (const c of children) c.kill('SIGKILL');
    },
  };
}

function leftoverMount(): Sabotage {
  const paths: string[] = [];
  return {
    name: 'a mount under the pod id stays after teardown',
    leak: /mount: .*cc-sabotage-/,
    apply(podId) {
      const path = `/tmp/cc-sabotage-${podId}`;
      mkdirSync(path, { recursive: true });
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', path]);
      paths.push(path);
    },
    undo: () => {
      for (const p of paths) {
        execFileSync('umount', ['-l', p]);
        rmSync(p, { recursive: true, force: true });
      }
    },
  };
}

async function runSabotaged(env: Record<string, string>, sabotage: Sabotage): Promise<CheckResult[]> {
  const sabotaged = new Set<string>();
  const beforeCall = async (method: CriMethod, request: unknown) => {
    const podId = (request as { podSandboxId?: string }).podSandboxId ?? '';
    if (method === 'StopPodSandbox' && podId !== '' && !sabotaged.has(podId)) {
      sabotaged.add(podId);
      sabotage.apply(podId);
    }
  };
  try {
    const flags = { focus: NODE_CHECKS, level: 'all', trials: '1', nodeProbes: 'on' };
    return (await runInProcess(flags, env, beforeCall)).results;
  } finally {
    sabotage.undo();
  }
}

if (runtimesUnderTest().length === 0)
  describeSkipped('[Node] checks against a sabotaged teardown on real containerd', NO_RUNTIME_REASON);
for (const runtime of runtimesUnderTest()) {
  describe(`[Node] checks against a sabotaged teardown on ${runtime.name}`, function () {
    this.timeout(10 * 60_000);
    for (const make of [leakedShim, leftoverMount]) {
      const sabotage = make();
      it(`fail, naming the leak, when ${sabotage.name}`, async () => {
        const results = await runSabotaged(runtime.env, sabotage);
        expect(results.map((r) => r.id)).to.have.members(['TEAR-11', 'TEAR-12', 'TEAR-13']);
        for (const r of results) {
          expect(r.verdict, `${r.id}: ${r.message ?? ''}`).to.equal('failed');
          expect(r.message, `${r.id}: ${r.message ?? ''}`).to.match(sabotage.leak);
        }
      });
    }
  });
}
