import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectNoLeftoversAfterTimeouts, TRIALS_WHY } from './timeout-leftovers.js';
import { NRI_PATHS, pathClauses } from './timeout-paths.js';

export const check = defineCheck({
  id: 'IDEM-16',
  level: 'MUST',
  tags: ['Node'],
  needs: ['nri', 'stalls-hooks', 'holds-in-lane'],
  uses: ['slow-runtime', 'slow-cni'],
  // Two paths: the RunPodSandbox and the CreateContainer hook.
  trials: { scale: 2, why: TRIALS_WHY },
  title:
    'Once a request that timed out in an NRI Run hook has converged and its pod is removed, the host holds nothing of the abandoned attempt',
  contract:
    'kubelet PodResourcesAreReclaimed: after removal no process, cgroup or netns of the pod may remain; NRI: a plugin may hold a creation up to its request timeout, so a kubelet deadline can expire inside the hook; checks.md "Leaks that the CRI cannot see count"',
  clauses: pathClauses(NRI_PATHS),
  run: (t: CheckContext) => expectNoLeftoversAfterTimeouts(t, NRI_PATHS),
});
