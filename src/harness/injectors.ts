/**
 * Delay injectors that live outside NRI: a runc wrapper registered as an extra runtime handler, and a CNI
 * wrapper. Both read their delay from a file in a control directory, so a check can set it; the runc
 * wrapper also logs the ids it is asked to create, which is how a check learns what a timed-out call built.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Injectors, SlowCni, SlowRuntime } from './context.js';
import { SkipSignal } from './errors.js';

export interface InjectorConfig {
  slowRuntimeHandler?: string;
  slowRuntimeDir?: string;
  slowCniDir?: string;
}

const DELAY_FILE = 'delay-ms';
const CREATED_LOG = 'created.log';
/** The slow CNI's: present means every ADD fails; each ADD appends "<container id> <netns>" to the log. */
const FAIL_FILE = 'fail';
const ADDED_LOG = 'added.log';
const CONTAINER_ID = /\b[0-9a-f]{64}\b/g;

export class CheckInjectors implements Injectors {
  private readonly touched = new Set<string>();
  private readonly failing = new Set<string>();

  constructor(private readonly config: InjectorConfig) {}

  slowRuntime(): SlowRuntime {
    const { slowRuntimeHandler: handler, slowRuntimeDir: dir } = this.config;
    if (!handler || !dir) {
      throw new SkipSignal(
        'needs a slow runtime handler: pass --slow-runtime-handler NAME --slow-runtime-dir DIR (scripts/containerd-up.sh sets up "conform-slow"; see README "Injectors")',
      );
    }
    const logAtStart = readCreated(dir);
    return {
      handler,
      setDelay: (ms) => this.setDelay(dir, ms),
      createdIds: async () => {
        const before = (await logAtStart).length;
        return (await readCreated(dir)).slice(before);
      },
    };
  }

  slowCni(): SlowCni {
    const dir = this.config.slowCniDir;
    if (!dir) {
      throw new SkipSignal(
        'needs a slow CNI wrapper: pass --slow-cni-dir DIR (scripts/containerd-up.sh sets one up; see README "Injectors")',
      );
    }
    const addedAtStart = readLines(join(dir, ADDED_LOG));
    return {
      setDelay: (ms) => this.setDelay(dir, ms),
      setFail: async (fail) => {
        if (fail) {
          this.failing.add(dir);
          await writeFile(join(dir, FAIL_FILE), 'cri-conform\n');
        } else {
          this.failing.delete(dir);
          await rm(join(dir, FAIL_FILE), { force: true });
        }
      },
      added: async () => {
        const lines = (await readLines(join(dir, ADDED_LOG))).slice((await addedAtStart).length);
        const owners = new Map<string, string>();
        for (const line of lines) {
          const [id, netns] = line.split(' ');
          if (id && netns) owners.set(netns, id);
        }
        return owners;
      },
    };
  }

  unavailable(kind: 'slowRuntime' | 'slowCni'): string | undefined {
    try {
      if (kind === 'slowRuntime') this.slowRuntime();
      else this.slowCni();
      return undefined;
    } catch (e) {
      if (e instanceof SkipSignal) return e.message;
      throw e;
    }
  }

  creationDelay(): { name: string; runtimeHandler: string; setDelay(ms: number): Promise<void> } {
    if (this.config.slowRuntimeHandler && this.config.slowRuntimeDir) {
      const slow = this.slowRuntime();
      return {
        name: `slow runtime handler "${slow.handler}"`,
        runtimeHandler: slow.handler,
        setDelay: slow.setDelay,
      };
    }
    if (this.config.slowCniDir) {
      const cni = this.slowCni();
      return { name: 'slow CNI wrapper', runtimeHandler: '', setDelay: cni.setDelay };
    }
    throw new SkipSignal(
      'needs a creation delay outside NRI: pass --slow-runtime-handler/--slow-runtime-dir or --slow-cni-dir (see README "Injectors")',
    );
  }

  /** Puts every delay this check set back to zero. */
  async reset(): Promise<void> {
    await Promise.all([...this.touched].map((dir) => writeFile(join(dir, DELAY_FILE), '0\n')));
    await Promise.all([...this.failing].map((dir) => rm(join(dir, FAIL_FILE), { force: true })));
    this.touched.clear();
    this.failing.clear();
  }

  private async setDelay(dir: string, ms: number): Promise<void> {
    this.touched.add(dir);
    await writeFile(join(dir, DELAY_FILE), `${Math.max(0, Math.round(ms))}\n`);
  }
}

async function readLines(path: string): Promise<string[]> {
  try {
    return (await readFile(path, 'utf8')).split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

async function readCreated(dir: string): Promise<string[]> {
  try {
    const text = await readFile(join(dir, CREATED_LOG), 'utf8');
    return [...text.matchAll(CONTAINER_ID)].map((m) => m[0]);
  } catch {
    return [];
  }
}
