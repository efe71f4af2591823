/**
 * HOOK-04/05's host part: the netns path a hook names must be a live namespace at hook time. An nsfs
 * inode proves that (a bind-mounted netns is one); an ordinary file at that path proves nothing. Without
 * host probes this part cannot run; the caller asserts the rest and then skips with the reason returned,
 * since the part left out is the check's main point.
 */
import type { CheckContext } from '../../src/harness/face.js';

/** Asserts the netns at `netns` is a namespace; returns '' when it looked, else why it could not. */
export function expectNetnsAt(
  t: CheckContext,
  netns: string,
  event: string,
  when: string,
  clause: string,
): string {
  // A missing path is the caller's to report: it is in the event, not on the host.
  if (netns === '') return `${event} named no network namespace to look at`;
  if (!t.host.available) {
    t.step(`host part not run: netns ${netns} not probed ${when} (host probes unavailable)`);
    t.observe('netns-probe', 'skipped: host probes unavailable');
    return `netns ${netns} was not probed ${when}: host probes unavailable (run on the node, --node-probes on)`;
  }
  const kind = t.host.netnsKind(netns);
  t.observe('netns-probe', kind);
  t.expect(
    kind === 'netns',
    `${event} named netns ${netns}, which ${
      kind === 'absent' ? 'did not exist' : 'was not a namespace (not on nsfs: an ordinary file)'
    } ${when}`,
    clause,
  );
  return '';
}
