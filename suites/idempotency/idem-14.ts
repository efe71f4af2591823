import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectNoLeftoversAfterTimeouts, TRIALS_WHY } from './timeout-leftovers.js';
import { INJECTOR_PATHS, injectorPaths, pathClauses } from './timeout-paths.js';

export const check = defineCheck({
  id: 'IDEM-14',
  level: 'MUST',
  tags: ['Node'],
  needs: ['creation-delay'],
  uses: ['slow-runtime', 'slow-cni'],
  // Three paths with both injectors.
  trials: { scale: 3, why: TRIALS_WHY },
  title:
    "Once a request that timed out in the runtime's create or in network setup has converged and its pod is removed, the host holds nothing of the abandoned attempt",
  contract:
    'kubelet PodResourcesAreReclaimed: after removal no process, cgroup or netns of the pod may remain; cri-api v0.32.3 api.proto RemovePodSandbox "removes the sandbox"; checks.md "Leaks that the CRI cannot see count"',
  clauses: pathClauses(INJECTOR_PATHS),
  run: (t: CheckContext) => expectNoLeftoversAfterTimeouts(t, injectorPaths(t)),
});
