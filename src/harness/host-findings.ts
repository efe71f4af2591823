/** What a host probe records of a live pod, and what it finds left of it after teardown. */
export interface PodHostSnapshot {
  podId: string;
  ids: string[];
  processes: { pid: number; startTime: string; cmdline: string }[];
  cgroupDirs: string[];
  netnsPath?: string;
  mounts: string[];
}

export interface HostLeak {
  kind: 'process' | 'cgroup' | 'netns' | 'mount' | 'runtime-record';
  what: string;
}

/** "process: pid 12 (...) is still alive; netns: ..." ('' when nothing leaked). */
export function describeLeaks(leaks: readonly HostLeak[]): string {
  return leaks.map((l) => `${l.kind}: ${l.what}`).join('; ');
}
