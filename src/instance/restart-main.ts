/**
 * The restart command of a private instance (`node restart-main.js DIR`), the --restart-cmd a run with
 * --isolated uses: stops the instance's own daemon and starts it again with the same config. The node's
 * runtime is never touched: the daemon is found through DIR and its command line.
 */
import { startDaemon, stopDaemon, waitAnswering } from './daemon.js';
import { flavorOf, hostViewOf, readInstanceFile } from './instance-file.js';

const ANSWER_WITHIN_MS = 20_000;

async function restart(dir: string | undefined): Promise<void> {
  const info = dir ? readInstanceFile(dir) : undefined;
  if (!dir || !info)
    throw new Error(`usage: restart-main.js DIR (a private instance's directory); got ${dir}`);
  const flavor = flavorOf(info);
  await stopDaemon(dir, flavor);
  startDaemon(dir, { binary: info.binary, path: info.path, flavor }, hostViewOf(info));
  await waitAnswering(dir, flavor, ANSWER_WITHIN_MS);
}

restart(process.argv[2]).then(
  () => {
    process.exitCode = 0;
  },
  (e: unknown) => {
    process.stderr.write(
      `cri-conform private instance restart: ${e instanceof Error ? e.message : String(e)}\n`,
    );
    process.exitCode = 1;
  },
);
