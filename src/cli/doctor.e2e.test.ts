/**
 * doctor against real containerd (1.7 and 2.1 on CI): it proves both injectors with one labelled pod and
 * leaves nothing behind, and a doctor killed mid-proof leaves only what `cri-conform cleanup` removes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { labelledLeft, runCli, runtimesUnderTest, untilLabelledPod } from './e2e-env.test.helper.js';

for (const runtime of runtimesUnderTest()) {
  describe(`cri-conform doctor against ${runtime.name}`, function () {
    this.timeout(120_000);
    const endpoint = runtime.env.CONTAINER_RUNTIME_ENDPOINT ?? '';

    it('proves that the slow handler logs and delays creates and that the slow CNI delays network setup', async () => {
      const run = await runCli(['doctor', '--level', 'all'], runtime.env);
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      expect(run.stdout)
        .to.match(
          /^ok {3}slow runtime handler "conform-slow" .* works: it logged the creates of the sandbox and the container under the key/m,
        )
        .and.to.match(
          /^ok {3}slow CNI wrapper .* works: RunPodSandbox took \d+ ms with pods\/cc-doctor-\/delay-ms 500; it logged the ADD and the DEL under the key and failed an ADD/m,
        )
        .and.to.match(/^ready: /m);
      expect(await labelledLeft(endpoint)).to.deep.equal({ pods: [], containers: [] });
    });

    it('fails a runc wrapper written to the old description (shared delay-ms, "<time> <id>"), naming what it lacks', async () => {
      const wrapper = join(runtime.env.CRI_CONFORM_SLOW_RUNTIME_DIR ?? '', 'runc-slow');
      await withOldWrapper(wrapper, 'real_runc', oldRuncWrapper, async () => {
        const run = await runCli(['doctor', '--focus', '^IDEM-01 '], runtime.env);
        expect(run.code, run.stdout + run.stderr).to.equal(2);
        // "claims" is named only when the call beat the delay: a loaded node may be slower than it anyway.
        expect(run.stdout).to.match(
          /^FAIL slow runtime handler "conform-slow" .* does not work\n {7}-> the slow runtime handler lacks (claims: CreateContainer \+ StartContainer took \d+ ms with pods\/cc-doctor-\/delay-ms 500; )?the key column in created\.log .*needed by IDEM-01$/m,
        );
      });
      expect(await labelledLeft(endpoint)).to.deep.equal({ pods: [], containers: [] });
    });

    it('fails a CNI wrapper written to the old description (shared delay-ms, no key, no del.log, no fail), naming what it lacks', async () => {
      const wrapper = join(runtime.env.CRI_CONFORM_SLOW_CNI_DIR ?? '', '..', 'cni-bin', 'conform-bridge');
      await withOldWrapper(wrapper, 'real_plugin', oldCniWrapper, async () => {
        const run = await runCli(['doctor', '--focus', '^IDEM-01 '], runtime.env);
        expect(run.code, run.stdout + run.stderr).to.equal(2);
        // "claims" is named only when the call beat the delay: a loaded node may be slower than it anyway.
        expect(run.stdout).to.match(/^ok {3}slow runtime handler "conform-slow" .* works/m);
        expect(run.stdout).to.match(
          /^FAIL slow CNI wrapper .* does not work\n {7}-> the slow CNI wrapper lacks (claims: RunPodSandbox took \d+ ms with pods\/cc-doctor-\/delay-ms 500; )?the key column in added\.log .*; del\.log: .*; fail: RunPodSandbox succeeded while pods\/cc-doctor-\/fail existed .*needed by IDEM-01$/m,
        );
      });
      expect(await labelledLeft(endpoint)).to.deep.equal({ pods: [], containers: [] });
    });

    it('when killed mid-proof, leaves a labelled pod that cleanup removes', async () => {
      let kill: ((signal: NodeJS.Signals) => void) | undefined;
      const doctor = runCli(['doctor'], runtime.env, {
        onSpawn: (k) => {
          kill = k;
        },
      });
      await untilLabelledPod(endpoint, 30_000);
      kill?.('SIGKILL');
      await doctor;
      const left = await labelledLeft(endpoint);
      expect(left.pods, 'the proof pod, found by its run label').to.have.length(1);
      expect(left.pods[0]).to.match(/^cc-doctor-injectors-/);
      // Earlier real-runtime tests may have left containerd records that CRI no longer lists (runtime leaks
      // that plain cleanup reports with exit 1); --native removes those too, so only the pod is at stake here.
      const cleanup = await runCli(['cleanup', '--native'], runtime.env);
      expect(cleanup.code, cleanup.stdout + cleanup.stderr).to.equal(0);
      expect(await labelledLeft(endpoint)).to.deep.equal({ pods: [], containers: [] });
    });
  });
}

/**
 * A runc wrapper as the README once described it: on create it logs "<time> <id>" and sleeps the shared
 * delay-ms; it knows nothing of claims. The id is the last argument of `runc create`.
 */
/**
 * Runs `body` with the installed wrapper swapped in place for one written to the old description, which
 * wraps the same real binary (the shipped file names it in `variable`), and puts the shipped one back.
 * In place, because the runtime runs the file anew for every call.
 */
async function withOldWrapper(
  wrapper: string,
  variable: string,
  oldWrapper: (real: string) => string,
  body: () => Promise<void>,
): Promise<void> {
  const shipped = readFileSync(wrapper, 'utf8');
  const real = new RegExp(`^${variable}='(.*)'$`, 'm').exec(shipped)?.[1];
  expect(real, `the installed ${wrapper} names its ${variable}`).to.be.a('string');
  writeFileSync(wrapper, oldWrapper(real ?? ''));
  try {
    await body();
  } finally {
    writeFileSync(wrapper, shipped);
  }
}

function oldRuncWrapper(realRunc: string): string {
  return `#!/bin/sh
control=\${0%/*}
for arg in "$@"; do last=$arg; done
case " $* " in
  *" create "*)
    printf '%s %s\\n' "$(date +%s.%N)" "$last" >>"$control/created.log"
    ms=$(cat "$control/delay-ms" 2>/dev/null)
    case $ms in ''|*[!0-9]*) ms=0 ;; esac
    [ "$ms" -gt 0 ] && sleep "$((ms / 1000))" ;;
esac
exec '${realRunc}' "$@"
`;
}

/** A CNI wrapper as the README once described it: on ADD it logs "<id> <netns>" and sleeps the shared delay-ms. */
function oldCniWrapper(realPlugin: string): string {
  return `#!/bin/sh
control=\${0%/*}/../slow-cni
if [ "\${CNI_COMMAND:-}" = ADD ]; then
  printf '%s %s\\n' "\${CNI_CONTAINERID:-}" "\${CNI_NETNS:-}" >>"$control/added.log"
  ms=$(cat "$control/delay-ms" 2>/dev/null)
  case $ms in ''|*[!0-9]*) ms=0 ;; esac
  [ "$ms" -gt 0 ] && sleep "$((ms / 1000))"
fi
exec '${realPlugin}' "$@"
`;
}
