/** What readiness finds, as data: `doctor` prints it, and a run refuses to start on a fatal finding. */

import type { Check } from '../check/check.js';
import type { HostProbe } from '../check/context.js';
import type { Availability } from '../check/selection.js';
import type { CgroupPlacement } from '../host/cgroup-parent.js';
import type { CgroupParentLease } from '../host/cgroup-parent-lease.js';
import type { KubeletEvidence } from '../neighbours/kubelet-detect.js';
import type { NriFinding } from '../runtime/environment.js';

/** ok: ready; warn: some checks will skip or a run may still fail it (doctor never pulls); fatal: exit 2. */
export type Severity = 'ok' | 'warn' | 'fatal';

export interface Finding {
  severity: Severity;
  /** What was probed, and for ok what it saw: "NRI v0.6.1 at /var/run/nri/nri.sock (containerd 1.7.24)". */
  what: string;
  /** For warn and fatal: what is wrong and what to do. */
  fix?: string;
  /** A fatal finding that makes every other one moot (the runtime cannot run a pod): said alone. */
  blocksAll?: true;
}

/**
 * A run applies the pull policy and proves only the injectors its checks need; doctor pulls nothing and
 * proves every configured injector. Whether a finding is fatal never depends on the purpose.
 */
export type ReadinessPurpose = 'run' | 'doctor';

export interface SkipForecast {
  check: Check;
  reason: string;
}

export interface Readiness {
  findings: Finding[];
  /**
   * What a run says before its first check, from the findings: what ended runs of the tool left (a
   * warning), and the images it pulled.
   */
  notes: string[];
  nri: NriFinding;
  host: HostProbe | { unavailable: string };
  /** What the pre-run skip decision reads; the run hands the same object to its scheduler. */
  availability: Availability;
  /** The selected checks that will skip before they start, with the reason each will report. */
  skips: SkipForecast[];
  /** Signs of a kubelet driving the runtime; the report records them. */
  kubelet: KubeletEvidence;
  /** The runtime's cgroup driver and the parent every pod gets; the report records them. */
  cgroup: CgroupPlacement;
  /**
   * The cgroupfs parent's directories the first pods may make, taken before them: a run releases it
   * after its final sweep, and doctor after its own (doctor-readiness.ts).
   */
  cgroupLease: CgroupParentLease;
}
