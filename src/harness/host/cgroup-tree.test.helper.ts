/**
 * A cgroup tree in a temporary folder, seen as a node's through a NodeView: cgroup v1 controllers plus
 * the unified hierarchy under /sys/fs/cgroup, as on the project's machines. Cgroup directories are plain
 * directories here, so rmdir behaves as on cgroupfs for an empty one and refuses one with a child.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeView } from './node-view.js';

export const CONTROLLERS = ['cpu', 'memory', 'pids', 'systemd'] as const;

export class CgroupTree extends NodeView {
  readonly root = mkdtempSync(join(tmpdir(), 'cc-cgroups-'));

  constructor() {
    super();
    for (const c of [...CONTROLLERS, 'unified'])
      mkdirSync(this.path(`/sys/fs/cgroup/${c}`), { recursive: true });
  }

  override path(nodePath: string): string {
    return join(this.root, nodePath);
  }

  override mountinfo(): string {
    const v1 = CONTROLLERS.map(
      (c, i) =>
        `${40 + i} 31 0:${29 + i} / /sys/fs/cgroup/${c} rw - cgroup cgroup rw,${c === 'systemd' ? 'name=systemd' : c}`,
    );
    return [
      '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
      ...v1,
      '70 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw',
      '',
    ].join('\n');
  }

  /** Makes `relative` (e.g. "/cri_conform.slice/cri-containerd-<id>.scope") in every hierarchy. */
  makeEverywhere(relative: string): void {
    for (const c of [...CONTROLLERS, 'unified'])
      mkdirSync(this.path(`/sys/fs/cgroup/${c}${relative}`), { recursive: true });
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
