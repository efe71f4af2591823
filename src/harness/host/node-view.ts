/**
 * Where this process sees the node's files and mount table. On the node: its own paths and mountinfo.
 * From a pod of its own (the Sonobuoy worker: the host's pids, its own mount namespace), through a process
 * in the node's mount namespace: the node's paths below /proc/<pid>/root, with the node's absolute links
 * followed on the node, and that process's mountinfo. Host probes read the node through it.
 */
import { readFileSync } from 'node:fs';
import { resolveUnderRoot } from './host-path.js';

export class NodeView {
  /**
   * @param anchor a process in the node's mount namespace; undefined when this process is in it
   * @param netnsDirs where the runtime pins network namespaces besides /run/netns (node paths)
   */
  constructor(
    readonly anchor?: number,
    readonly netnsDirs: readonly string[] = [],
  ) {}

  get inPod(): boolean {
    return this.anchor !== undefined;
  }

  /** A node path as this process can open it. */
  path(nodePath: string): string {
    return this.anchor === undefined ? nodePath : resolveUnderRoot(`/proc/${this.anchor}/root`, nodePath);
  }

  /** The node's mount table: mount points are node paths. */
  mountinfo(): string {
    return readFileSync(`/proc/${this.anchor ?? 'self'}/mountinfo`, 'utf8');
  }
}

/** This process on the node itself. */
export const ON_NODE = new NodeView();
