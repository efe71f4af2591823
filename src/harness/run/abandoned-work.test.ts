import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

/**
 * In a process of its own: mocha handles unhandled rejections itself, and what is tested is that the
 * process lives on, as a run's would.
 */
describe('a check cut short by its deadline', () => {
  it('ends in ERROR, and the calls it left unawaited do not end the process when they reject', () => {
    const helper = fileURLToPath(new URL('../check/fake-runtime.test.helper.js', import.meta.url));
    const execute = fileURLToPath(new URL('./execute-check.js', import.meta.url));
    const script = `
      const { fakeEnv, startFakeRuntime, testCheck } = await import(${JSON.stringify(helper)});
      const { executeCheck } = await import(${JSON.stringify(execute)});
      const fake = await startFakeRuntime();
      const check = testCheck(async (t) => {
        // Started first and awaited after a wait, as NAME-01 does with its two RunPodSandbox.
        const unawaited = new Promise((_, reject) => t.signal.addEventListener('abort', () => reject(t.signal.reason)));
        await new Promise(() => {});
        await unawaited;
      });
      const result = await executeCheck(fakeEnv(fake.client), check, 50);
      await new Promise((resolve) => setTimeout(resolve, 100));
      console.log(result.verdict, result.message);
      await fake.close();
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).not.to.contain('CheckTimeout');
    expect(child.status).to.equal(0);
    expect(child.stdout).to.match(/^error check timed out after 50 ms/);
  });
});
