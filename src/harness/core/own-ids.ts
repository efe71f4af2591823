/**
 * Ids of the run's own objects, as the run learns them: from the replies of its own calls that made them,
 * and attempts the runtime abandoned, which show only in a reservation error that names the attempt still
 * holding the run's pod name, or in the runtime's own records while they carry the run's labels. After the
 * final sweep, a process that still names one of them, for an id the runtime no longer knows, is one the
 * runtime lost track of (docs/upstream/containerd-IDEM-14.md; a shim containerd 2.1 "cleaned up" while it
 * ran on, when two clients stopped its pod at once); ids from nowhere else are collected, so that nothing of
 * another client's is ever taken for the run's.
 */
import { sameRuntime } from './socket-identity.js';

/** A full sandbox or container id: 64 hex digits, as containerd and CRI-O make them. */
const FULL_ID = /^[0-9a-f]{64}$/;

export function isFullId(id: string): boolean {
  return FULL_ID.test(id);
}
/** containerd's reservation error: `name "<the run's name>" is reserved for "<id>"`. */
const RESERVED_FOR = /is reserved for \\?"([0-9a-f]{64})\\?"/g;

export class OwnIds {
  private readonly ids = new Set<string>();
  private record: ((id: string) => void) | undefined;

  add(ids: Iterable<string>): void {
    for (const id of ids)
      if (isFullId(id) && !this.ids.has(id)) {
        this.ids.add(id);
        this.record?.(id);
      }
  }

  /**
   * Hands every id learnt so far, and each one learnt from now on, to `record`: a run writes them beside
   * its pod logs, so that `cleanup` can stop what the runtime lost of a run killed before its final sweep.
   */
  recordTo(record: (id: string) => void): void {
    this.record = record;
    for (const id of this.ids) record(id);
  }

  /** The ids a reservation error of one of the run's own calls names as the holder of the run's name. */
  addFromError(message: string | undefined): void {
    if (message) this.add(reservationHolders(message));
  }

  /** The pod or container a call of the run's own made, as its reply names it. */
  addMade(method: string, reply: unknown): void {
    const made = reply as { podSandboxId?: unknown; containerId?: unknown } | undefined;
    if (method === 'RunPodSandbox' && typeof made?.podSandboxId === 'string') this.add([made.podSandboxId]);
    if (method === 'CreateContainer' && typeof made?.containerId === 'string') this.add([made.containerId]);
  }

  all(): string[] {
    return [...this.ids];
  }
}

/** The ids a reservation error names as holding the name it refused (containerd's wording); [] for others. */
export function reservationHolders(message: string): string[] {
  return [...message.matchAll(RESERVED_FOR)].map((m) => m[1] ?? '').filter((id) => id !== '');
}

/**
 * The files of ids the tool keeps for `cleanup` (a run's own ids beside its pod logs, the ids a final sweep
 * left, lost-ids.ts) start with a line naming the CRI endpoint the ids are of, then hold one id a line. A
 * cleanup of another runtime on the same node must not take them for its own: that runtime lists none of
 * them and keeps no record of them, so it would stop another runtime's processes as lost.
 */
const ENDPOINT_LINE = /^# endpoint (.*)$/;

/** The same socket whether written as a path or as unix://path. */
function endpointKey(endpoint: string): string {
  return endpoint.replace(/^unix:\/\//, '');
}

/** The first line of a file of ids of `endpoint`'s objects. */
export function idsFileHeader(endpoint: string): string {
  return `# endpoint ${endpointKey(endpoint)}\n`;
}

export interface IdsFile {
  /** Undefined in a file written before files named their endpoint: its ids may be any runtime's. */
  endpoint?: string;
  ids: string[];
}

/** The endpoint and the full ids of such a file; other lines are skipped. */
export function readIdsFile(text: string): IdsFile {
  const lines = text.split('\n');
  const endpoint = ENDPOINT_LINE.exec(lines[0] ?? '')?.[1];
  return { ...(endpoint ? { endpoint } : {}), ids: lines.filter(isFullId) };
}

/**
 * Whether the file's ids may be `endpoint`'s objects: the same runtime, or either one unknown. The same
 * runtime by the socket the two lead to, not by their text: `/var/run/containerd/containerd.sock` and
 * `/run/containerd/containerd.sock` are one, and so is a Sonobuoy worker's `/host/run/...`.
 */
export function idsFileIsOf(file: IdsFile, endpoint: string | undefined): boolean {
  if (file.endpoint === undefined || endpoint === undefined) return true;
  return sameRuntime({ endpoint: file.endpoint }, endpoint);
}
