/**
 * Is this node ready for a run with these flags, and which selected checks will skip? `doctor` prints the
 * answer and a run refuses to start on a fatal finding, so the two can never disagree: both call this, with
 * the same skip rule the scheduler applies (staticSkipReason).
 */

import type { CriClient } from '../../cri/client.js';
import type { Check } from '../check/check.js';
import { type Availability, namedInFocus, staticSkipReason } from '../check/selection.js';
import { EnvironmentError } from '../core/errors.js';
import { missingInjectors } from '../core/injector-needs.js';
import type { RunConfig } from '../core/settings.js';
import { parentCgroupPath } from '../host/cgroup-parent.js';
import { CgroupParentLease } from '../host/cgroup-parent-lease.js';
import { NodeView } from '../host/node-view.js';
import { runtimeNetnsDirs } from '../host/runtime-netns.js';
import { detectKubelet } from '../neighbours/kubelet-detect.js';
import { pluginSyncDeadlockRisk } from '../neighbours/plugin-sync-deadlock.js';
import { describeRuntime, nodeProbeAvailability, probeNri } from '../runtime/environment.js';
import { NodeHostProbe } from '../runtime/host-probe.js';
import { PullCredentials } from '../runtime/pull-credentials.js';
import { cgroupReadiness } from './readiness-cgroup.js';
import { imageFinding } from './readiness-images.js';
import { injectorFindings } from './readiness-injectors.js';
import { leftoversFinding } from './readiness-leftovers.js';
import {
  besideDetectedKubelet,
  hostFinding,
  kubeletFinding,
  nriFinding,
  nriTimeoutFinding,
  ok,
  restartFinding,
  runtimeStatus,
} from './readiness-probes.js';
import type { Finding, Readiness, ReadinessPurpose, SkipForecast } from './readiness-types.js';

const NRI_REGISTRATION_MS = 6_000;

/**
 * @param recordOwnIds where the ids of the proof's pods go as they are learnt (OwnIds.recordTo), for a
 *   caller whose own folder exists before the proof: a run's, and doctor's (doctor-readiness.ts)
 */
export async function assessReadiness(
  client: CriClient,
  config: RunConfig,
  checks: readonly Check[],
  purpose: ReadinessPurpose,
  recordOwnIds?: (id: string) => void,
): Promise<Readiness> {
  // A file that cannot serve stops the run before it asks the runtime anything.
  const credentials = config.pullAuthFile ? PullCredentials.load(config.pullAuthFile) : undefined;
  const status = await runtimeStatus(client);
  const kubelet = await detectKubelet(client, config.runtimeEndpoint);
  const kubeletSeen = kubeletFinding(kubelet, config);
  const cgroup = await cgroupReadiness(client, config);
  const findings: Finding[] = [
    ok(`CRI: ${describeRuntime(client.version)} at ${config.runtimeEndpoint}`),
    ...status.findings,
    kubeletSeen,
    cgroup.finding,
  ];
  // Before the proof's pods: those are the run's own.
  const leftovers = await leftoversFinding(client, config.runtimeEndpoint);
  findings.push(leftovers);
  const image = (name: string, flag: string) =>
    imageFinding(client, name, flag, config, purpose, credentials);
  const testImage = await image(config.testImage, '--test-image');
  const pauseImage = await image(config.pauseImage, '--pause-image');
  findings.push(testImage, pauseImage);
  // Leftovers are not the run's to remove, nor read by its verdicts, but they hold the node's resources
  // until `cleanup`; a pull changes the node.
  const notes = [
    ...(leftovers.severity === 'warn' ? [`warning: ${describeFinding(leftovers)}`] : []),
    ...[testImage, pauseImage].filter((f) => f.pulled).map((f) => f.what),
  ];

  // Beside a kubelet, even the probe's registration may deadlock the node's runtime (plugin-sync-deadlock.ts).
  const kubeletNear = config.besideKubelet === true || kubelet.signs.length > 0;
  const deadlock = kubeletNear ? pluginSyncDeadlockRisk(runtimeOf(client)) : undefined;
  const nri = deadlock ? { unavailable: deadlock } : await probeNri(config.nriSocket, NRI_REGISTRATION_MS);
  const netnsDirs = [...new Set([...(config.netnsDirs ?? []), ...(await runtimeNetnsDirs(client))])];
  const host = nodeProbeAvailability({ ...config, netnsDirs }, parentCgroupPath(cgroup.placement));
  const nriTimeout = nriTimeoutFinding(nri, config);
  findings.push(
    nriFinding(nri, config, checks),
    ...(nriTimeout ? [nriTimeout] : []),
    hostFinding(host),
    await restartFinding(config),
  );

  const availability: Availability = {
    slow: config.slow,
    ...(nri.unavailable ? { nri: nri.unavailable } : {}),
    ...('unavailable' in host ? { node: host.unavailable } : {}),
    ...(config.restartCmd ? {} : { restart: 'restarts the runtime: pass --restart-cmd' }),
    injectors: missingInjectors(config),
    ...(besideDetectedKubelet(kubelet, config)
      ? { besideKubelet: { named: namedInFocus(checks, config.focus) } }
      : {}),
  };
  const skipped = new Set(checks.filter((check) => staticSkipReason(check, availability)));
  const blocked = [...status.findings, kubeletSeen, cgroup.finding].some((f) => f.severity === 'fatal');
  // Taken before the first pod (the proof's): what exists now is not the run's to remove.
  const cgroupLease =
    blocked || 'unavailable' in host
      ? CgroupParentLease.none()
      : CgroupParentLease.take(cgroup.placement, new NodeView(config.nodeAnchorPid));
  if (host instanceof NodeHostProbe && recordOwnIds) host.ownIds.recordTo(recordOwnIds);
  const injectors = await injectorFindings({
    // A run and doctor kill what the runtime lost track of of their own pods at their end
    // (NodeHostProbe.endStrays).
    client: host instanceof NodeHostProbe ? host.learningFrom(client) : client,
    config,
    handlers: status.handlers,
    active: checks.filter((c) => !skipped.has(c)),
    purpose,
    // A kubelet would stop the proof pod within seconds and make a working injector look broken; a pod
    // that cannot be placed in a cgroup fails in runc whatever the injectors do.
    mayCreatePod: !blocked,
    besideKubelet: besideDetectedKubelet(kubelet, config),
    testImagePresent: testImage.severity === 'ok',
    cgroupParent: cgroup.placement.parent,
  });
  findings.push(...injectors.findings);
  // What the proof learned joins the rule the run's scheduler applies, so the forecast is the run's.
  if (injectors.heldCreate) availability.heldCreate = injectors.heldCreate;
  const skips: SkipForecast[] = checks.flatMap((check) => {
    const reason = staticSkipReason(check, availability);
    return reason ? [{ check, reason }] : [];
  });
  return {
    findings,
    notes,
    nri,
    host,
    availability,
    skips,
    kubelet,
    cgroup: cgroup.placement,
    cgroupLease,
  };
}

function runtimeOf(client: CriClient): { name: string; version: string } {
  return { name: client.version.runtimeName, version: client.version.runtimeVersion };
}

/** Throws the fatal findings as one EnvironmentError (exit 2), each with what to fix. */
export function requireReady(readiness: Readiness): void {
  const blocking = readiness.findings.filter((f) => f.severity === 'fatal' && f.blocksAll);
  const fatal = blocking.length > 0 ? blocking : readiness.findings.filter((f) => f.severity === 'fatal');
  if (fatal.length > 0) throw new EnvironmentError(fatal.map(describeFinding).join('; '));
}

export function describeFinding(f: Finding): string {
  return f.fix ? `${f.what}: ${f.fix}` : f.what;
}
