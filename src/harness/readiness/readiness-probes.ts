/**
 * The probes behind readiness, each turning what it saw into findings: the runtime's Status conditions and
 * handlers, NRI, host probes and the restart command (the images: readiness-images.ts).
 */
import type { CriClient } from '../../cri/client.js';
import type { StatusResponse } from '../../cri/types.js';
import type { Check } from '../check/check.js';
import type { HostProbe } from '../check/context.js';
import { errorMessage } from '../core/errors.js';
import { nriRequestTimeoutOf, type RunConfig } from '../core/settings.js';
import type { KubeletEvidence } from '../neighbours/kubelet-detect.js';
import type { NriFinding } from '../runtime/environment.js';
import { describeSocket, servingSocket } from '../runtime/runtime-identity.js';
import type { Finding } from './readiness-types.js';

export interface RuntimeStatus {
  findings: Finding[];
  /** The handlers Status lists; empty when the runtime does not list them (CRI before v1.30). */
  handlers: string[];
}

/** RuntimeReady false makes every check fail for a reason that is not the contract's: a run cannot start. */
export async function runtimeStatus(client: CriClient): Promise<RuntimeStatus> {
  let status: StatusResponse;
  try {
    status = await client.call('Status', { verbose: false });
  } catch (e) {
    return { findings: [fatal('runtime Status', `the call failed: ${errorMessage(e)}`)], handlers: [] };
  }
  const findings = (status.status?.conditions ?? []).map((c) =>
    c.status
      ? ok(`condition ${c.type}`)
      : {
          severity: c.type === 'RuntimeReady' ? ('fatal' as const) : ('warn' as const),
          what: `condition ${c.type} is false`,
          fix: `${c.reason || 'no reason given'}: ${c.message || 'no message'}`,
        },
  );
  return { findings, handlers: (status.runtimeHandlers ?? []).map((h) => h.name) };
}

/** NRI that is required (--require-nri) by a selected check and absent stops the run; otherwise its checks skip. */
export function nriFinding(
  nri: NriFinding,
  config: Pick<RunConfig, 'nriSocket' | 'requireNri'>,
  checks: readonly Check[],
): Finding {
  if (!nri.unavailable) return ok(`NRI ${nri.version ?? '?'} at ${config.nriSocket} (${nri.runtime ?? ''})`);
  if (config.requireNri && checks.some((c) => c.needs.includes('nri')))
    return fatal('NRI', `${nri.unavailable} (--require-nri)`);
  return warn('NRI', `${nri.unavailable}; NRI checks will skip`);
}

/**
 * The plugin request timeout the checks' bounds use. The runtime's own, when it sends it in Configure,
 * wins over --nri-request-timeout; a flag given that says otherwise is a warning, since one of the two is
 * wrong about this runtime.
 */
export function nriTimeoutFinding(
  nri: NriFinding,
  config: Pick<RunConfig, 'nriRequestTimeoutMs' | 'nriRequestTimeoutGiven'>,
): Finding | undefined {
  if (nri.unavailable) return undefined;
  const used = nriRequestTimeoutOf(config, nri.timeouts);
  if (used.from === '--nri-request-timeout') {
    const flag = config.nriRequestTimeoutGiven
      ? '--nri-request-timeout'
      : 'the default of --nri-request-timeout';
    return ok(`NRI plugin request timeout ${used.ms} ms: ${flag}, since the runtime sends none in Configure`);
  }
  if (config.nriRequestTimeoutGiven && config.nriRequestTimeoutMs !== used.ms)
    return warn(
      `NRI plugin request timeout: the runtime sent ${used.ms} ms in Configure, --nri-request-timeout says ${config.nriRequestTimeoutMs} ms`,
      `the checks' bounds use the runtime's ${used.ms} ms; drop the flag or correct whichever is wrong`,
    );
  return ok(`NRI plugin request timeout ${used.ms} ms, as the runtime sent it in Configure`);
}

export function hostFinding(host: HostProbe | { unavailable: string }): Finding {
  return 'unavailable' in host
    ? warn('host probes', `${host.unavailable}; [Node] checks will skip`)
    : ok('host probes (/proc, cgroups, netns, mountinfo)');
}

/** The command, and whether a restart it makes can be shown: the process serving the socket must be known. */
export async function restartFinding(
  config: Pick<RunConfig, 'restartCmd' | 'runtimeEndpoint'>,
): Promise<Finding> {
  if (!config.restartCmd) return warn('restart command', '[Restart] checks will skip: pass --restart-cmd');
  const serving = await servingSocket(config.runtimeEndpoint);
  return 'unknown' in serving
    ? warn(
        `restart command: ${config.restartCmd}`,
        `a restart cannot be shown here (${serving.unknown}), so [Restart] checks will ERROR`,
      )
    : ok(`restart command: ${config.restartCmd} (the runtime serves on ${describeSocket(serving)})`);
}

/** The ways out, in one line: the run stops with it (exit 2) unless --beside-kubelet is given. */
export const KUBELET_WAYS_OUT =
  "its pod cleanup stops cri-conform's pods within seconds and its GC removes them, so verdicts would be wrong and its own pods could suffer: stop the kubelet for a maintenance window (drain the node, systemctl stop kubelet), or test a private instance of the runtime with --isolated; --beside-kubelet runs anyway";

/**
 * Whether the run goes on beside a kubelet it found. Only then does anything the check did not ask for
 * count as another client's doing (disturbance.ts), and do the checks that would harm its pods skip:
 * --beside-kubelet with no kubelet found leaves the runtime the only other party.
 */
export function besideDetectedKubelet(
  kubelet: KubeletEvidence,
  config: Pick<RunConfig, 'besideKubelet'>,
): boolean {
  return config.besideKubelet === true && kubelet.signs.length > 0;
}

export function kubeletFinding(kubelet: KubeletEvidence, config: Pick<RunConfig, 'besideKubelet'>): Finding {
  if (kubelet.signs.length === 0)
    return ok(
      config.besideKubelet
        ? "kubelet: none drives this runtime, so --beside-kubelet changes nothing: what the checks did not ask for is the runtime's own doing"
        : 'kubelet: none drives this runtime',
    );
  const what = `a kubelet drives this runtime: ${kubelet.signs.join('; ')}`;
  return config.besideKubelet
    ? warn(
        what,
        'running beside it (--beside-kubelet): checks whose pods it stops end in ERROR "disturbed"; checks that restart the runtime or stall its hooks skip unless --focus names them',
      )
    : fatal(what, KUBELET_WAYS_OUT);
}

export function ok(what: string): Finding {
  return { severity: 'ok', what };
}

export function warn(what: string, fix: string): Finding {
  return { severity: 'warn', what, fix };
}

export function fatal(what: string, fix: string): Finding {
  return { severity: 'fatal', what, fix };
}
