/**
 * A variant of a check in two parts: its start, which times a request out and learns what the runtime
 * built for it, and the rest, returned by the start (none when the variant cannot run here).
 */
export type Variant = () => Promise<(() => Promise<void>) | undefined>;

/**
 * Runs a check's variants that each wait out a long bound (--cache-ttl) so that the check waits it once.
 * The starts go one after another: each reads what its timed-out request built from the injector's log,
 * which a variant working beside it would write to as well. The rests then run side by side, and every one
 * runs to its end before the check does, so that none is still working while the check's objects are
 * cleaned up; the first that failed, in the order given, fails the check.
 */
export async function variantsSideBySide(...variants: readonly Variant[]): Promise<void> {
  const rests: (() => Promise<void>)[] = [];
  for (const start of variants) {
    const rest = await start();
    if (rest) rests.push(rest);
  }
  const ended = await Promise.allSettled(rests.map((rest) => rest()));
  const failed = ended.find((e): e is PromiseRejectedResult => e.status === 'rejected');
  if (failed) throw failed.reason;
}
