/**
 * HOOK-04/05's host part: the netns path a hook names must be a live namespace at hook time. An nsfs
 * inode proves that (a bind-mounted netns is one); an ordinary file at that path proves nothing. Without
 * host probes this part alone is skipped and says so; the CRI and NRI parts of the check still run.
 */
import type { CheckContext } from '../../src/harness/face.js';

export function expectNetnsAt(t: CheckContext, netns: string, event: string, when: string): void {
  // A missing path is the caller's to report: it is in the event, not on the host.
  if (netns === '') return;
  if (!t.host.available) {
    t.step(`host part skipped: netns ${netns} not probed ${when} (host probes unavailable)`);
    t.observe('netns-probe', 'skipped: host probes unavailable');
    return;
  }
  const kind = t.host.netnsKind(netns);
  t.observe('netns-probe', kind);
  t.expect(
    kind === 'netns',
    `${event} named netns ${netns}, which ${
      kind === 'absent' ? 'did not exist' : 'was not a namespace (not on nsfs: an ordinary file)'
    } ${when}`,
  );
}
