/**
 * The folders the tool makes on the node for its runs and private instances go when they are empty: at the
 * end of a run and by `cleanup`, so that a node the tool has left holds no trace of it. rmdir takes only an
 * empty folder, so nothing in use is touched; and nothing is taken while another run of the tool is alive,
 * since a run that is just making its entry in one of them would lose the folder under it.
 */
import { rmdirSync } from 'node:fs';
import { LOST_IDS_ROOT_AS_ROOT } from '../harness/host/lost-ids.js';
import { otherLiveRuns, POD_LOG_ROOT_AS_ROOT } from '../harness/host/pod-logs.js';
import { SHARED_WITH_NODE } from '../instance/host-view.js';
import { INSTANCE_INDEX } from '../instance/instance-file.js';
import { INSTANCE_ROOTS } from '../instance/instance-roots.js';
import { NETWORK_CLAIMS } from '../instance/network.js';

/** Deepest first: a parent can only go once its children have. */
const STATE_DIRS: readonly string[] = [
  POD_LOG_ROOT_AS_ROOT,
  LOST_IDS_ROOT_AS_ROOT,
  INSTANCE_INDEX,
  NETWORK_CLAIMS,
  ...INSTANCE_ROOTS,
  SHARED_WITH_NODE,
];

/** Removes those of the folders that are empty, unless another run is alive. Never throws. */
export function pruneEmptyStateDirs(
  dirs: readonly string[] = STATE_DIRS,
  anotherRunAlive = () => process.getuid?.() !== 0 || otherLiveRuns('').length > 0,
): void {
  if (anotherRunAlive()) return;
  for (const dir of dirs) {
    try {
      rmdirSync(dir);
    } catch {
      // Not empty, absent, or a mount point: it stays.
    }
  }
}
