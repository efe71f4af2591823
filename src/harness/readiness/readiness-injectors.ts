/**
 * Readiness of the delay injectors: configured, registered and writable, then proven with one pod. A broken
 * injector is fatal when a selected check that would run needs it, since every such check would error.
 */
import { accessSync, constants } from 'node:fs';
import type { CriClient } from '../../cri/client.js';
import type { Check } from '../check/check.js';
import {
  CREATE_NOT_HELD,
  type InjectorKind,
  injectorFor,
  isInjectorNeed,
  type OfferedInjector,
} from '../core/injector-needs.js';
import type { RunConfig } from '../core/settings.js';
import { runsOfOtherProcessesOn } from '../host/pod-logs.js';
import { releaseAllClaims, writeDelay } from '../injectors/injectors.js';
import { type ProofOutcome, type ProofPlan, proveInjectors } from './injector-proof.js';
import { ok, warn } from './readiness-probes.js';
import type { Finding, ReadinessPurpose, Severity } from './readiness-types.js';

export interface InjectorProbeInput {
  client: CriClient;
  config: RunConfig;
  /** Handlers the runtime lists in Status (empty: it lists none, so nothing can be concluded). */
  handlers: readonly string[];
  /** Selected checks that no static reason skips. */
  active: readonly Check[];
  purpose: ReadinessPurpose;
  /** False when the pod cannot be made anyway (the runtime is not ready). */
  mayCreatePod: boolean;
  /** A kubelet drives the runtime and the run goes on beside it: a failed proof may be its doing. */
  besideKubelet: boolean;
  testImagePresent: boolean;
  /** The parent the run's pods get (readiness-cgroup.ts); the proof pods get it too. */
  cgroupParent: string;
}

const OFFERED: Record<InjectorKind, OfferedInjector> = { runtime: 'slow-runtime', cni: 'slow-cni' };

interface Configured {
  kind: InjectorKind;
  dir: string;
  label: string;
  /** Why it cannot even be tried, before any pod. */
  problem?: string;
  neededBy: string[];
}

export interface InjectorReadiness {
  findings: Finding[];
  /** Set when the proven slow runtime handler cannot hold CreateContainer here (Availability.heldCreate). */
  heldCreate?: string;
}

export async function injectorFindings(input: InjectorProbeInput): Promise<InjectorReadiness> {
  const { config } = input;
  const configured = configuredInjectors(input);
  const findings: Finding[] = [];
  if (!configured.some((c) => c.kind === 'runtime'))
    findings.push(warn('slow runtime handler', notConfigured('slow-runtime', config)));
  if (!configured.some((c) => c.kind === 'cni'))
    findings.push(warn('slow CNI wrapper', notConfigured('slow-cni', config)));

  // A killed run or doctor may have left a delay set (the slow CNI's own delays every pod of the runtime)
  // or a check's claim on its pods' settings. Only with no other run alive: a live run's claims are its
  // checks' settings in use, and a doctor beside it had turned its held trials into ERRORs.
  const others = runsOfOtherProcessesOn(config.runtimeEndpoint);
  if (others.length > 0)
    findings.push(
      ok(
        `injector settings left as they are: ${others.length === 1 ? 'another run is' : `${others.length} other runs are`} alive (${others.join(', ')}), whose checks use them`,
      ),
    );
  else
    await Promise.all(
      configured
        .filter((c) => !c.problem)
        .map(async (c) => {
          await writeDelay(c.dir, 0);
          await releaseAllClaims(c.dir);
        }),
    );
  const toProve = configured.filter(
    (c) => !c.problem && input.mayCreatePod && (input.purpose === 'doctor' || c.neededBy.length > 0),
  );
  const plan: ProofPlan = {
    defaultHandler: config.runtimeHandler,
    testImage: config.testImage,
    cgroupParent: input.cgroupParent,
    canRunContainer: input.testImagePresent,
    besideKubelet: input.besideKubelet,
    ...(toProve.some((c) => c.kind === 'runtime') && config.slowRuntimeHandler && config.slowRuntimeDir
      ? { runtime: { handler: config.slowRuntimeHandler, dir: config.slowRuntimeDir } }
      : {}),
    ...(toProve.some((c) => c.kind === 'cni') && config.slowCniDir
      ? { cni: { dir: config.slowCniDir } }
      : {}),
  };
  // Every injector to prove needs a pod, so mayCreatePod alone decides. With none to prove, the proof is
  // one plain pod: a runtime that cannot run any pod is then said first and alone, not as every check's error.
  const proof = input.mayCreatePod ? await proveInjectors(input.client, plan) : undefined;
  if (proof?.plainPodFailure) {
    // Not the injectors' fault: whatever needs a pod fails the same way, so this is the one finding.
    return {
      findings: [{ severity: 'fatal', ...cannotRunPod(proof.plainPodFailure, config), blocksAll: true }],
    };
  }
  for (const c of configured) findings.push(judge(c, proof?.[c.kind]));
  if (proof && proof.cleanupProblems.length > 0) {
    findings.push(
      warn(
        'injector proof pod',
        `not fully removed (${proof.cleanupProblems.join('; ')}): run cri-conform cleanup`,
      ),
    );
  }
  return proof?.runtime?.createsAtStart ? { findings, heldCreate: CREATE_NOT_HELD } : { findings };
}

function configuredInjectors(input: InjectorProbeInput): Configured[] {
  const { config } = input;
  // A check that needs a creation delay spreads its timeouts over every configured one (creationDelays,
  // IDEM-14's paths), so it uses the slow CNI too when both injectors are configured.
  const uses = (need: string, kind: InjectorKind) =>
    isInjectorNeed(need) &&
    (kindOf(injectorFor(need, config)) === kind ||
      (need === 'creation-delay' &&
        kindOf(injectorFor(kind === 'cni' ? 'slow-cni' : 'slow-runtime', config)) === kind));
  // A check that takes the injector where offered (CheckSpec.uses) errors on a broken one just the same.
  const neededBy = (kind: InjectorKind) =>
    input.active
      .filter((c) => c.needs.some((n) => uses(n, kind)) || c.uses.includes(OFFERED[kind]))
      .map((c) => c.id);
  const list: Configured[] = [];
  if (config.slowRuntimeHandler && config.slowRuntimeDir) {
    const { slowRuntimeHandler: handler, slowRuntimeDir: dir } = config;
    const unlisted = input.handlers.length > 0 && !input.handlers.includes(handler);
    const problem = unlisted
      ? `the runtime does not list handler "${handler}" in Status (it lists ${input.handlers.map((h) => `"${h}"`).join(', ')}): register it in the runtime's config`
      : unwritable(dir, '--slow-runtime-dir');
    list.push({
      kind: 'runtime',
      dir,
      label: `slow runtime handler "${handler}" (${dir})`,
      neededBy: neededBy('runtime'),
      ...(problem ? { problem } : {}),
    });
  }
  if (config.slowCniDir) {
    const problem = unwritable(config.slowCniDir, '--slow-cni-dir');
    list.push({
      kind: 'cni',
      dir: config.slowCniDir,
      label: `slow CNI wrapper (${config.slowCniDir})`,
      neededBy: neededBy('cni'),
      ...(problem ? { problem } : {}),
    });
  }
  return list;
}

function judge(c: Configured, outcome: ProofOutcome | undefined): Finding {
  const severity: Severity = c.neededBy.length > 0 ? 'fatal' : 'warn';
  const needed =
    c.neededBy.length > 0 ? `needed by ${c.neededBy.join(', ')}` : 'no selected check that runs needs it';
  if (c.problem) return { severity, what: c.label, fix: `${c.problem}; ${needed}` };
  if (!outcome) return ok(`${c.label}: not tried (${needed})`);
  if (outcome.verdict === 'works') return ok(`${c.label} works: ${outcome.detail}`);
  if (outcome.verdict === 'unproven') return warn(`${c.label} not fully proven`, outcome.detail);
  return { severity, what: `${c.label} does not work`, fix: `${outcome.detail}; ${needed}` };
}

function notConfigured(need: 'slow-runtime' | 'slow-cni', config: RunConfig): string {
  const found = injectorFor(need, config);
  return 'missing' in found ? `not configured: the checks that need it skip (${found.missing})` : '';
}

function kindOf(found: ReturnType<typeof injectorFor>): InjectorKind | undefined {
  return 'kind' in found ? found.kind : undefined;
}

function unwritable(dir: string, flag: string): string | undefined {
  try {
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (e) {
    return `cannot write ${dir} (${(e as NodeJS.ErrnoException).code ?? 'error'}): pass the wrapper's control dir as ${flag}`;
  }
}

/**
 * A private instance is cri-conform's own setup of the node's binary: its failure is not the node's
 * runtime's, and its own log is where to look.
 */
function cannotRunPod(failure: string, config: RunConfig): { what: string; fix: string } {
  if (config.privateInstanceLog === undefined)
    return {
      what: 'the runtime cannot run a pod',
      fix: `${failure} (the runtime's log says more; no check can run until a plain pod starts)`,
    };
  return {
    what: "the private copy of the node's runtime that cri-conform set up cannot run a pod",
    fix: `${failure} (the node's own runtime was not asked; the copy's log ${config.privateInstanceLog} goes with the copy at the end)`,
  };
}
