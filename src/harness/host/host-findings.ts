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
  /**
   * The object itself ("pid 12", a cgroup's path below its hierarchy, a netns file): one object found by
   * two probes, or in several cgroup hierarchies, is reported once. Absent, `what` names it.
   */
  object?: string;
  /**
   * The id of the trial's pod or container it belongs to, where the probe knows it: what tells the
   * leftovers of one abandoned build from another's in the same trial.
   */
  of?: string;
}

/**
 * "process: pid 12 (...) is still alive; cgroup: k8s.io/<id> exists in 10 hierarchies; ..." ('' when
 * nothing leaked). Each object once: a cgroup is one line however many controller hierarchies hold it.
 */
export function describeLeaks(leaks: readonly HostLeak[]): string {
  const objects = new Map<string, { leak: HostLeak; places: Set<string> }>();
  for (const leak of leaks) {
    const key = `${leak.kind}\0${leak.object ?? leak.what}`;
    const seen = objects.get(key) ?? { leak, places: new Set<string>() };
    seen.places.add(leak.what);
    objects.set(key, seen);
  }
  return [...objects.values()]
    .map(({ leak, places }) =>
      leak.kind === 'cgroup' && leak.object !== undefined
        ? `cgroup: ${leak.object} exists in ${places.size === 1 ? 'one hierarchy' : `${places.size} hierarchies`}`
        : `${leak.kind}: ${leak.what}`,
    )
    .join('; ');
}

/**
 * describeLeaks once per object the leftovers belong to (HostLeak.of), in the order found; those no probe
 * tied to an id make one more line. Empty when nothing leaked.
 */
export function describeLeaksByOwner(leaks: readonly HostLeak[]): string[] {
  const owners = new Map<string, HostLeak[]>();
  for (const leak of leaks) {
    const key = leak.of ?? '';
    owners.set(key, [...(owners.get(key) ?? []), leak]);
  }
  const unowned = owners.get('');
  owners.delete('');
  return [...owners.values(), ...(unowned ? [unowned] : [])].map(describeLeaks);
}
