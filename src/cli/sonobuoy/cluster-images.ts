/**
 * Images for a run inside a cluster. The node can pull there, so the defaults are public images instead of
 * the locally built ones: the runtime's own pause image where it says which one it uses, and a small
 * busybox. Air-gapped clusters set CRI_CONFORM_TEST_IMAGE and CRI_CONFORM_PAUSE_IMAGE in the plugin env.
 */
import type { CriClient } from '../../cri/client.js';
import { type SandboxImage, sandboxImageOf } from '../../cri/sandbox-image.js';

/** The busybox Kubernetes' own e2e tests use; on registry.k8s.io, so no Docker Hub pull limits. */
export const CLUSTER_TEST_IMAGE = 'registry.k8s.io/e2e-test-images/busybox:1.36.1-1';
/** The kubelet's default sandbox image of Kubernetes 1.31-1.33, when the runtime does not say. */
export const CLUSTER_PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';

export type PauseImageChoice = SandboxImage;

export async function pauseImageOf(client: CriClient): Promise<PauseImageChoice> {
  return (
    (await sandboxImageOf(client)) ?? {
      image: CLUSTER_PAUSE_IMAGE,
      source: 'the default (the runtime does not report its pause image)',
    }
  );
}
