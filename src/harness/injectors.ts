/**
 * Delay injectors that live outside NRI: a runc wrapper registered as an extra runtime handler, and a CNI
 * wrapper. Both read their delay from a file in a control directory, so a check can set it; the runc
 * wrapper also logs the ids it is asked to create, which is how a check learns what a timed-out call built.
 */
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CreationDelay, Injectors, SlowCni, SlowRuntime } from './context.js';
import { SkipSignal } from './errors.js';

export interface InjectorConfig {
  slowRuntimeHandler?: string;
  slowRuntimeDir?: string;
  slowCniDir?: string;
}

const DELAY_FILE = 'delay-ms';
const CREATED_LOG = 'created.log';
/** The slow CNI wrapper's log: one sandbox id (CNI_CONTAINERID) per DEL. */
const DELETED_LOG = 'del.log';
const CONTAINER_ID = /\b[0-9a-f]{64}\b/g;

export class CheckInjectors implements Injectors {
  private readonly touched = new Set<string>();

  constructor(private readonly config: InjectorConfig) {}

  slowRuntime(): SlowRuntime {
    const { slowRuntimeHandler: handler, slowRuntimeDir: dir } = this.config;
    if (!handler || !dir) {
      throw new SkipSignal(
        'needs a slow runtime handler: pass --slow-runtime-handler NAME --slow-runtime-dir DIR (scripts/containerd-up.sh sets up "conform-slow"; see README "Injectors")',
      );
    }
    return {
      handler,
      setDelay: (ms) => this.setDelay(dir, ms),
      createdIds: idsLoggedSince(join(dir, CREATED_LOG)),
    };
  }

  slowCni(): SlowCni {
    const dir = this.config.slowCniDir;
    if (!dir) {
      throw new SkipSignal(
        'needs a slow CNI wrapper: pass --slow-cni-dir DIR (scripts/containerd-up.sh sets one up; see README "Injectors")',
      );
    }
    return {
      setDelay: (ms) => this.setDelay(dir, ms),
      deletedIds: idsLoggedSince(join(dir, DELETED_LOG)),
    };
  }

  get configured(): { slowRuntime: boolean; slowCni: boolean } {
    const { slowRuntimeHandler, slowRuntimeDir, slowCniDir } = this.config;
    return { slowRuntime: Boolean(slowRuntimeHandler && slowRuntimeDir), slowCni: Boolean(slowCniDir) };
  }

  creationDelay(): CreationDelay {
    const [first] = this.creationDelays();
    if (!first) throw new Error('creationDelays() returned none without skipping');
    return first;
  }

  creationDelays(): CreationDelay[] {
    const delays: CreationDelay[] = [];
    if (this.configured.slowRuntime) {
      const slow = this.slowRuntime();
      delays.push({
        name: `slow runtime handler "${slow.handler}"`,
        runtimeHandler: slow.handler,
        setDelay: slow.setDelay,
      });
    }
    if (this.configured.slowCni) {
      delays.push({ name: 'slow CNI wrapper', runtimeHandler: '', setDelay: this.slowCni().setDelay });
    }
    if (delays.length === 0) {
      throw new SkipSignal(
        'needs a creation delay outside NRI: pass --slow-runtime-handler/--slow-runtime-dir or --slow-cni-dir (see README "Injectors")',
      );
    }
    return delays;
  }

  /** Puts every delay this check set back to zero. */
  async reset(): Promise<void> {
    await Promise.all([...this.touched].map((dir) => writeFile(join(dir, DELAY_FILE), '0\n')));
    this.touched.clear();
  }

  private async setDelay(dir: string, ms: number): Promise<void> {
    this.touched.add(dir);
    await writeFile(join(dir, DELAY_FILE), `${Math.max(0, Math.round(ms))}\n`);
  }
}

/**
 * A reader of the ids `file` gained after this call (the check's own part of a shared log). The length at
 * the start is read at once, so nothing logged after the call can count as "before".
 */
function idsLoggedSince(file: string): () => Promise<string[]> {
  const before = idsIn(readOrEmpty(() => readFileSync(file, 'utf8'))).length;
  return async () => idsIn(await readFile(file, 'utf8').catch(() => '')).slice(before);
}

function readOrEmpty(read: () => string): string {
  try {
    return read();
  } catch {
    return '';
  }
}

function idsIn(text: string): string[] {
  return [...text.matchAll(CONTAINER_ID)].map((m) => m[0]);
}
