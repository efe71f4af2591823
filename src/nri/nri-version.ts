/**
 * Which NRI version a runtime speaks, and which events it therefore accepts. The runtime says so itself
 * only from NRI v0.12.0 (ConfigureRequest.NRI_version); before that it is inferred from the runtime's
 * name and version, per the table in shared/notes/nri-protocol.md sections 4.6 and 5.
 */
import { EVENTS_MASK_V0_6, EVENTS_MASK_V0_10 } from './event-mask.js';

export const UNKNOWN_NRI_VERSION = 'unknown';

/** [first runtime version of the range, NRI version], ascending; a version maps to the last row <= it. */
type VersionTable = readonly (readonly [string, string])[];

const CONTAINERD: VersionTable = [
  ['1.7.0', 'v0.3.0'],
  ['1.7.7', 'v0.4.0'],
  ['1.7.14', 'v0.6.0'],
  ['1.7.16', 'v0.6.1'],
  ['1.7.26', 'v0.8.0'],
  ['2.2.0', 'v0.10.0'],
  ['2.2.1', 'v0.11.0'],
  ['2.3.0', 'v0.12.0'],
];

const CRIO: VersionTable = [
  ['1.26.0', 'v0.2.0'],
  ['1.26.2', 'v0.3.0'],
  ['1.29.0', 'v0.5.0'],
  ['1.29.2', 'v0.6.0'],
  ['1.31.0', 'v0.6.1'],
  ['1.32.0', 'v0.9.0'],
  ['1.33.0', 'v0.9.1'],
  ['1.34.0', 'v0.10.0'],
  ['1.35.0', 'v0.11.0'],
];

/** Parses "v1.7.24", "1.7.24~ds1", "2.1.9-1" into [major, minor, patch]; undefined when it cannot. */
export function parseVersion(v: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(v.trim());
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

/** Negative, zero or positive like a sort comparator; unparsable versions sort first. */
export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a) ?? [-1, 0, 0];
  const pb = parseVersion(b) ?? [-1, 0, 0];
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The NRI version of a runtime that did not send one. containerd 2.0 reports its name as "v2".
 * Returns UNKNOWN_NRI_VERSION for other runtimes and for versions older than the table.
 */
export function inferNriVersion(runtimeName: string, runtimeVersion: string): string {
  const table =
    runtimeName === 'containerd' || runtimeName === 'v2'
      ? CONTAINERD
      : runtimeName === 'cri-o'
        ? CRIO
        : undefined;
  if (!table || !parseVersion(runtimeVersion)) return UNKNOWN_NRI_VERSION;
  let found = UNKNOWN_NRI_VERSION;
  for (const [from, nri] of table) if (compareVersions(runtimeVersion, from) >= 0) found = nri;
  return found;
}

/** The event bits a runtime of this NRI version accepts; unknown versions get the safe 0x7FF. */
export function validEventsMask(nriVersion: string): number {
  return parseVersion(nriVersion) && compareVersions(nriVersion, 'v0.10.0') >= 0
    ? EVENTS_MASK_V0_10
    : EVENTS_MASK_V0_6;
}
