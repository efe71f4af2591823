/**
 * Delay injectors that live outside NRI: a runc wrapper registered as an extra runtime handler, and a CNI
 * wrapper. Both read their delay from a file in a control directory, so a check can set it; the runc
 * wrapper also logs the ids it is asked to create, which is how a check learns what a timed-out call built,
 * and the CNI wrapper logs the sandbox id of every DEL, which is how a check counts teardowns.
 *
 * Checks that use them run at once, so each check claims its own settings: the directory pods/<key>/ in
 * each control directory, where the key starts the names of all of the check's pods. The wrappers apply
 * that directory's delay and failure only to those pods and tag their log lines with the key, so a check
 * sets and reads nothing of another's. A trial of a check claims a key of its own the same way (its pods'
 * names start `cc-idem-14t3-`, which the check's `cc-idem-14-` does not start), so trials run side by side
 * each set their own delay and read only their own pods' lines.
 */
import { mkdirSync, statSync } from 'node:fs';
import { open, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CreationDelay, HoldingTurn, Injectors, SlowCni, SlowRuntime } from '../check/context.js';
import { trialNamePrefix } from '../check/trial-scope.js';
import { SkipSignal } from '../core/errors.js';
import {
  type InjectorConfig,
  type InjectorNeed,
  injectorFor,
  type OfferedInjector,
} from '../core/injector-needs.js';
import type { Need } from '../core/vocabulary.js';

const DELAY_FILE = 'delay-ms';
/** The slow CNI's: present means every ADD fails; each ADD appends "<container id> <netns>" to the log. */
const FAIL_FILE = 'fail';
const CONTAINER_ID = /\b[0-9a-f]{64}\b/g;
/** Where a check's own settings live in a control dir, one subdirectory per key. */
export const CLAIMS_DIR = 'pods';

/**
 * The wrappers' logs and the field of each line that holds the key of the pod it acted for:
 * created.log "<time> <container id> <key>", added.log "<sandbox id> <netns> <key>" (one per ADD),
 * del.log "<sandbox id> <key>" (one per DEL).
 */
export const WRAPPER_LOGS = { 'created.log': 2, 'added.log': 2, 'del.log': 1 } as const;
export type WrapperLog = keyof typeof WRAPPER_LOGS;

/** The log lines a wrapper wrote and which field of each holds the key of the pod it acted for. */
interface KeyedLog {
  file: string;
  keyField: number;
}

function keyedLog(dir: string, log: WrapperLog): KeyedLog {
  return { file: join(dir, log), keyField: WRAPPER_LOGS[log] };
}

export class CheckInjectors implements Injectors {
  /** The settings directories claimed so far, and the check's (or its trials') lines of the shared logs. */
  private readonly claims: InjectorClaims;
  /** Injectors the check uses only where the run offers them (see offers()). */
  private readonly optional = new Set<InjectorNeed>();

  /**
   * `declared`: the check's needs; asking for an injector it did not declare is a bug in the check.
   * `key`: the start of every pod name the check makes (config-factory's podNamePrefix).
   * `uses`: the injectors it may take where the run offers them (CheckSpec.uses).
   * `trialOf`: the trial the caller runs in; inside one, every setting and log is the trial's own.
   * `holding`: the run's account of the check's rest (doneHolding); without it the check never rests.
   * `learnOwn`: takes the ids the wrappers logged for the check's pods, as the run's own (OwnIds).
   */
  constructor(
    private readonly config: InjectorConfig,
    private readonly declared: readonly Need[],
    key: string,
    private readonly uses: readonly OfferedInjector[] = [],
    trialOf: () => number | undefined = () => undefined,
    private readonly holding?: { turn: HoldingTurn; signal: AbortSignal },
    learnOwn?: (ids: readonly string[]) => void,
  ) {
    this.claims = new InjectorClaims(key, trialOf);
    if (learnOwn) this.claims.learnOwn = learnOwn;
    // A delay or failure armed after a rest waits for the runtime to be the injector checks' again.
    const { turn, signal } = this.holding ?? {};
    if (turn && signal) this.claims.beforeArming = () => turn.resume(signal);
  }

  doneHolding(): void {
    this.holding?.turn.rest();
  }

  slowRuntime(): SlowRuntime {
    this.require('slow-runtime');
    return slowRuntimeOf(this.config, this.claims);
  }

  slowCni(): SlowCni {
    this.require('slow-cni');
    return slowCniOf(this.config, this.claims);
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

  createNotHeld(): string | undefined {
    return this.config.createNotHeld;
  }

  offers(need: OfferedInjector): string | undefined {
    // A check that needs a creation delay may take either injector (readiness counts it a user of both).
    const declared = this.declared.includes(need) || this.declared.includes('creation-delay');
    if (!this.uses.includes(need) && !declared) {
      throw new Error(
        `the check asks t.inject.offers('${need}') without declaring it: add '${need}' to its uses, so doctor knows it`,
      );
    }
    const found = injectorFor(need, this.config);
    if ('missing' in found) return found.missing;
    this.optional.add(need);
    return undefined;
  }

  /**
   * Puts every delay this check set back to zero and lifts every CNI failure it asked for; with `trial`,
   * gives up that trial's settings instead (its pods are gone: nothing of the trial is delayed any more).
   */
  reset(trial?: number): Promise<void> {
    return this.claims.reset(trial);
  }

  /** Gives up the check's settings directories: its pods, if any were left, are then delayed by no one. */
  release(): Promise<void> {
    return this.claims.release();
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
    const slow = slowRuntimeOf(this.config, this.claims);
    return {
      name: `slow runtime handler "${slow.handler}"`,
      runtimeHandler: slow.handler,
      setDelay: slow.setDelay,
      createdIds: slow.createdIds,
    };
  }

  private cniDelay(): CreationDelay {
    return {
      name: 'slow CNI wrapper',
      runtimeHandler: '',
      setDelay: slowCniOf(this.config, this.claims).setDelay,
    };
  }
}

/** The slow runtime handler as the check drives it, through the caller's own settings directory. */
function slowRuntimeOf(config: InjectorConfig, claims: InjectorClaims): SlowRuntime {
  const { slowRuntimeHandler: handler, slowRuntimeDir: dir } = config;
  if (!handler || !dir) throw new Error('unreachable: require() checked the slow runtime handler');
  claims.claim(dir);
  const created = claims.idsLoggedSince(dir, keyedLog(dir, 'created.log'));
  return {
    handler,
    setDelay: (ms) => claims.arming(ms > 0, () => writeDelay(claims.claim(dir), ms)),
    createdIds: async () => claims.learnt(await created()),
    watchReach: () => {
      const since = claims.linesLoggedSince(dir, keyedLog(dir, 'created.log'));
      return async () => {
        const [first] = await since();
        if (first === undefined) return 'not reached';
        const atMs = loggedAtMs(first);
        return atMs === undefined ? 'untimed' : { atMs };
      };
    },
  };
}

/**
 * When a created.log line was written ("<unix time> <id> <key>"), on performance.now()'s clock; undefined
 * when its time is not a number (a wrapper of the user's that writes something else there).
 */
function loggedAtMs(line: string): number | undefined {
  const seconds = Number(line.trim().split(/\s+/)[0]);
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
  return performance.now() - (Date.now() - seconds * 1000);
}

/** The slow CNI wrapper as the check drives it, through the caller's own settings directory. */
function slowCniOf(config: InjectorConfig, claims: InjectorClaims): SlowCni {
  const dir = config.slowCniDir;
  if (!dir) throw new Error('unreachable: require() checked the slow CNI dir');
  claims.claim(dir);
  const added = claims.linesLoggedSince(dir, keyedLog(dir, 'added.log'));
  return {
    setDelay: (ms) => claims.arming(ms > 0, () => writeDelay(claims.claim(dir), ms)),
    deletedIds: claims.idsLoggedSince(dir, keyedLog(dir, 'del.log')),
    setFail: (fail) =>
      claims.arming(fail, () => {
        const own = claims.claim(dir);
        return fail
          ? writeFile(join(own, FAIL_FILE), 'cri-conform\n')
          : rm(join(own, FAIL_FILE), { force: true });
      }),
    added: async () => {
      const owners = new Map<string, string>();
      for (const [id, netns] of (await added()).map((l) => l.split(' ')))
        if (id && netns) owners.set(netns, id);
      claims.learnt([...owners.values()]);
      return owners;
    },
  };
}

/** One check's claims: its (and its trials') settings directory in each control dir, and their log lines. */
class InjectorClaims {
  /** The settings directories claimed so far, with the key (check or trial) each was claimed for. */
  private readonly claimed = new Map<string, string>();
  /**
   * Per log and key: the log's size when the key was first claimed. The bytes before it are earlier runs'
   * lines, which are never read again: the logs only grow, by every pod the instance ever made.
   */
  private readonly sizeAtClaim = new Map<string, number>();
  /** Runs before a delay or a failure is armed (CheckInjectors' constructor). */
  beforeArming: () => Promise<void> = async () => undefined;
  /**
   * Takes ids the wrappers logged under the check's key: its own pods' sandboxes and containers, even an
   * attempt the runtime dropped, so the run's final sweep can stop a process the runtime lost of one.
   */
  learnOwn: (ids: readonly string[]) => void = () => undefined;

  constructor(
    private readonly key: string,
    private readonly trialOf: () => number | undefined,
  ) {}

  /** The ids, handed to learnOwn on their way back to the caller. */
  learnt<T extends readonly string[]>(ids: T): T {
    this.learnOwn(ids);
    return ids;
  }

  /** Writes a setting; one that arms a delay or a failure first waits for beforeArming. */
  async arming(arms: boolean, write: () => Promise<void>): Promise<void> {
    if (arms) await this.beforeArming();
    await write();
  }

  async reset(trial?: number): Promise<void> {
    if (trial !== undefined) {
      const key = trialNamePrefix(this.key, trial);
      const own = [...this.claimed].filter(([, k]) => k === key).map(([dir]) => dir);
      for (const dir of own) this.claimed.delete(dir);
      await Promise.all(own.map((dir) => rm(dir, { recursive: true, force: true })));
      return;
    }
    await Promise.all(
      [...this.claimed.keys()].map(async (dir) => {
        await writeDelay(dir, 0);
        await rm(join(dir, FAIL_FILE), { force: true });
      }),
    );
  }

  async release(): Promise<void> {
    await Promise.all([...this.claimed.keys()].map((dir) => rm(dir, { recursive: true, force: true })));
    this.claimed.clear();
  }

  /** The key of the caller: its trial's inside a trial, else the check's. */
  private currentKey(): string {
    const trial = this.trialOf();
    return trial === undefined ? this.key : trialNamePrefix(this.key, trial);
  }

  /**
   * The caller's settings directory in a control dir, made at once: from here on the wrapper tags the pods
   * of the caller's key with it, so the caller reads them in the shared logs.
   */
  claim(dir: string): string {
    const key = this.currentKey();
    const own = join(dir, CLAIMS_DIR, key);
    if (!this.claimed.has(own)) {
      for (const log of Object.keys(WRAPPER_LOGS) as WrapperLog[]) {
        const file = join(dir, log);
        this.sizeAtClaim.set(`${file} ${key}`, sizeOf(file));
      }
      mkdirSync(own, { recursive: true });
      this.claimed.set(own, key);
    }
    return own;
  }

  /**
   * A reader of the lines the caller's pods gained in `log` since this call (a key first seen later: since
   * it was claimed). The log's size at the start is taken at once, so nothing logged after the call can
   * count as "before". Read in a trial, the reader sees the trial's lines, so the trial must have claimed
   * the dir before making its pods: the wrapper tags only pods of a claimed key.
   */
  linesLoggedSince(dir: string, log: KeyedLog): () => Promise<string[]> {
    const keyNow = this.currentKey();
    const before = sizeOf(log.file);
    return async () => {
      const key = this.currentKey();
      if (key !== keyNow && !this.claimed.has(join(dir, CLAIMS_DIR, key)))
        throw new Error(
          `unreachable: a reader of ${log.file} made for ${keyNow} was read in a trial that had not claimed ${dir}; its pods went untagged, so it would read nothing: make the injector inside the trial, before its pods`,
        );
      this.claim(dir);
      const from = key === keyNow ? before : (this.sizeAtClaim.get(`${log.file} ${key}`) ?? 0);
      return ownLines(await readLinesFrom(log.file, from), log.keyField, key);
    };
  }

  /** As linesLoggedSince, for the ids those lines name. */
  idsLoggedSince(dir: string, log: KeyedLog): () => Promise<string[]> {
    const lines = this.linesLoggedSince(dir, log);
    return async () => idsIn(await lines());
  }
}

function ownLines(lines: readonly string[], keyField: number, key: string): string[] {
  // The substring test first: the logs are shared by every check, and most lines are another's.
  return lines.filter((line) => line.includes(key) && line.trim().split(/\s+/)[keyField] === key);
}

function splitLines(text: string): string[] {
  return text.split('\n').filter(Boolean);
}

/** Sets the delay an injector's wrapper sleeps on its next create or ADD. */
export async function writeDelay(dir: string, ms: number): Promise<void> {
  await writeFile(join(dir, DELAY_FILE), `${Math.max(0, Math.round(ms))}\n`);
}

/**
 * How a wrapper logged `id` in `log` (its newest line naming it): not at all, without `key` in the key
 * column (a wrapper that knows nothing of claims), or with it.
 */
export async function howLogged(
  dir: string,
  log: WrapperLog,
  id: string,
  key: string,
): Promise<'absent' | 'unkeyed' | 'keyed'> {
  const line = (await readLinesFrom(join(dir, log), 0)).findLast((l) => l.includes(id));
  if (line === undefined) return 'absent';
  return ownLines([line], WRAPPER_LOGS[log], key).length > 0 ? 'keyed' : 'unkeyed';
}

/** Removes the settings every check claimed (a killed run leaves its claims behind); returns their keys. */
export async function releaseAllClaims(dir: string): Promise<string[]> {
  const claims = join(dir, CLAIMS_DIR);
  const keys = await readdir(claims).catch(() => [] as string[]);
  await rm(claims, { recursive: true, force: true });
  return keys;
}

/** A log's size in bytes; 0 while the wrapper has written none. */
function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * The lines a log gained after its first `from` bytes (none while it does not exist). The wrappers append
 * whole lines, so `from`, a size the log once had, falls between two. A log now shorter than that was made
 * anew, and is read whole.
 */
async function readLinesFrom(file: string, from: number): Promise<string[]> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return [];
  try {
    const { size } = await handle.stat();
    const start = size < from ? 0 : from;
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(size - start), 0, size - start, start);
    return splitLines(buffer.toString('utf8', 0, bytesRead));
  } finally {
    await handle.close();
  }
}

function idsIn(text: string | readonly string[]): string[] {
  const all = typeof text === 'string' ? text : text.join('\n');
  return [...all.matchAll(CONTAINER_ID)].map((m) => m[0]);
}
