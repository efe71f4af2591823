/**
 * Delay injectors that live outside NRI: a runc wrapper registered as an extra runtime handler, and a CNI
 * wrapper. Both read their delay from a file in a control directory, so a check can set it; the runc
 * wrapper also logs the ids it is asked to create, which is how a check learns what a timed-out call built,
 * and the CNI wrapper logs the sandbox id of every DEL, which is how a check counts teardowns.
 */
import { readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CreationDelay, Injectors, SlowCni, SlowRuntime } from './context.js';
import { SkipSignal } from './errors.js';
import { type InjectorConfig, type InjectorNeed, injectorFor } from './injector-needs.js';
import type { Need } from './vocabulary.js';

const DELAY_FILE = 'delay-ms';
const CREATED_LOG = 'created.log';
/** The slow CNI's: present means every ADD fails; each ADD appends "<container id> <netns>" to the log. */
const FAIL_FILE = 'fail';
const ADDED_LOG = 'added.log';
/** The slow CNI wrapper's log: one sandbox id (CNI_CONTAINERID) per DEL. */
const DELETED_LOG = 'del.log';
const CONTAINER_ID = /\b[0-9a-f]{64}\b/g;

export class CheckInjectors implements Injectors {
  private readonly touched = new Set<string>();
  private readonly failing = new Set<string>();
  /** Injectors the check uses only where the run offers them (see offers()). */
  private readonly optional = new Set<InjectorNeed>();

  /** `declared`: the check's needs; asking for an injector it did not declare is a bug in the check. */
  constructor(
    private readonly config: InjectorConfig,
    private readonly declared: readonly Need[],
  ) {}

  slowRuntime(): SlowRuntime {
    this.require('slow-runtime');
    return this.runtime();
  }

  slowCni(): SlowCni {
    this.require('slow-cni');
    return this.cni();
  }

  creationDelay(): CreationDelay {
    if (this.require('creation-delay') === 'runtime') return this.runtimeDelay();
    return this.cniDelay();
  }

  creationDelays(): CreationDelay[] {
    this.require('creation-delay');
    const has = (need: InjectorNeed) => 'kind' in injectorFor(need, this.config);
    return [
      ...(has('slow-runtime') ? [this.runtimeDelay()] : []),
      ...(has('slow-cni') ? [this.cniDelay()] : []),
    ];
  }

  offers(need: 'slow-runtime' | 'slow-cni'): string | undefined {
    const found = injectorFor(need, this.config);
    if ('missing' in found) return found.missing;
    this.optional.add(need);
    return undefined;
  }

  /** Puts every delay this check set back to zero and lifts every CNI failure it asked for. */
  async reset(): Promise<void> {
    await Promise.all([...this.touched].map((dir) => writeDelay(dir, 0)));
    await Promise.all([...this.failing].map((dir) => rm(join(dir, FAIL_FILE), { force: true })));
    this.touched.clear();
    this.failing.clear();
  }

  /**
   * The injector for a declared need. The run skips a check whose need is unmet before it starts, so the
   * skip here is only reached when a check is executed on its own.
   */
  private require(need: InjectorNeed): 'runtime' | 'cni' {
    if (!this.declared.includes(need) && !this.optional.has(need)) {
      throw new Error(
        `the check asks for t.inject (${need}) without declaring it: add '${need}' to its needs, so the run and doctor know it`,
      );
    }
    const found = injectorFor(need, this.config);
    if ('missing' in found) throw new SkipSignal(found.missing);
    return found.kind;
  }

  private runtimeDelay(): CreationDelay {
    const slow = this.runtime();
    return {
      name: `slow runtime handler "${slow.handler}"`,
      runtimeHandler: slow.handler,
      setDelay: slow.setDelay,
      createdIds: slow.createdIds,
    };
  }

  private cniDelay(): CreationDelay {
    return { name: 'slow CNI wrapper', runtimeHandler: '', setDelay: this.cni().setDelay };
  }

  private runtime(): SlowRuntime {
    const { slowRuntimeHandler: handler, slowRuntimeDir: dir } = this.config;
    if (!handler || !dir) throw new Error('unreachable: require() checked the slow runtime handler');
    return {
      handler,
      setDelay: (ms) => this.setDelay(dir, ms),
      createdIds: idsLoggedSince(join(dir, CREATED_LOG)),
    };
  }

  private cni(): SlowCni {
    const dir = this.config.slowCniDir;
    if (!dir) throw new Error('unreachable: require() checked the slow CNI dir');
    const addedAtStart = readLines(join(dir, ADDED_LOG));
    return {
      setDelay: (ms) => this.setDelay(dir, ms),
      deletedIds: idsLoggedSince(join(dir, DELETED_LOG)),
      setFail: async (fail) => {
        if (fail) this.failing.add(dir);
        await (fail
          ? writeFile(join(dir, FAIL_FILE), 'cri-conform\n')
          : rm(join(dir, FAIL_FILE), { force: true }));
      },
      added: async () => {
        const lines = (await readLines(join(dir, ADDED_LOG))).slice((await addedAtStart).length);
        const owners = new Map<string, string>();
        for (const [id, netns] of lines.map((l) => l.split(' '))) if (id && netns) owners.set(netns, id);
        return owners;
      },
    };
  }

  private async setDelay(dir: string, ms: number): Promise<void> {
    this.touched.add(dir);
    await writeDelay(dir, ms);
  }
}

/** Sets the delay an injector's wrapper sleeps on its next create or ADD. */
export async function writeDelay(dir: string, ms: number): Promise<void> {
  await writeFile(join(dir, DELAY_FILE), `${Math.max(0, Math.round(ms))}\n`);
}

async function readLines(path: string): Promise<string[]> {
  try {
    return (await readFile(path, 'utf8')).split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** Every id the slow runtime handler's wrapper logged, oldest first. */
export async function readCreated(dir: string): Promise<string[]> {
  return idsIn(await readFile(join(dir, CREATED_LOG), 'utf8').catch(() => ''));
}

/**
 * A reader of the ids `file` gained after this call (the check's own part of a shared log). The length at
 * the start is read at once, so nothing logged after the call can count as "before".
 */
function idsLoggedSince(file: string): () => Promise<string[]> {
  const before = idsIn(readOrEmpty(file)).length;
  return async () => idsIn(await readFile(file, 'utf8').catch(() => '')).slice(before);
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function idsIn(text: string): string[] {
  return [...text.matchAll(CONTAINER_ID)].map((m) => m[0]);
}
