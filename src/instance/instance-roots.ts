/**
 * Every folder private instances are put in, in order of preference: the one place that lists them, so
 * that `cleanup --isolated`, the fleet worker's sweep and the tests find an instance wherever placement.ts
 * put it. /run first (short socket paths, gone at reboot); /var/lib where /run cannot execute the
 * instance's wrappers or has no room for its images (Debian and Ubuntu mount /run noexec at 10% of RAM).
 */
export const INSTANCE_ROOTS: readonly string[] = [
  '/run/cri-conform/isolated',
  '/var/lib/cri-conform/isolated',
];
