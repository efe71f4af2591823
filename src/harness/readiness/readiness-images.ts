/**
 * The test and pause images by the pull policy, pulled (by a run) with the credentials of --pull-auth-file
 * for the image's registry, as a kubelet pulls with a pod's imagePullSecret.
 */
import type { CriClient } from '../../cri/client.js';
import { errorMessage } from '../core/errors.js';
import type { RunConfig } from '../core/settings.js';
import { registryOf } from '../runtime/image-registry.js';
import { imagePresent, pullImage } from '../runtime/images.js';
import type { PullCredentials } from '../runtime/pull-credentials.js';
import { fatal, ok, warn } from './readiness-probes.js';
import type { Finding, ReadinessPurpose } from './readiness-types.js';

/** A refusal that a registry's missing or wrong credentials explain, in the words runtimes pass on. */
const REFUSED = /\b(401|403)\b|unauthori[sz]ed|authenticat|authoriz|denied|forbidden/i;

/**
 * An image by the pull policy. A run pulls what the policy allows; doctor never pulls, so a missing image it
 * may pull is a warning there and a pull that would fail shows only in the run.
 */
export async function imageFinding(
  client: CriClient,
  image: string,
  flag: string,
  config: Pick<RunConfig, 'pull'>,
  purpose: ReadinessPurpose,
  credentials?: PullCredentials,
): Promise<Finding & { pulled?: true }> {
  const what = `image ${image} (${flag})`;
  const present = await imagePresent(client, image);
  if (present && config.pull !== 'always') return ok(what);
  if (!present && config.pull === 'never') {
    return fatal(
      what,
      'it is not on the node and --pull is never: import it (e.g. ctr -n k8s.io images import <tar>; scripts/build-images.sh builds one) or use --pull missing',
    );
  }
  const pullAuth = credentials?.for(image);
  const withAuth = pullAuth ? ` with the credentials of ${pullAuth.key} (--pull-auth-file)` : '';
  if (purpose === 'doctor') {
    const noAuth = credentials && !pullAuth ? `; ${credentials.noneFor(image)}` : '';
    return present
      ? ok(`${what}, pulled again by run (--pull always)${withAuth}`)
      : warn(what, `it is not on the node; run pulls it first (--pull ${config.pull})${withAuth}${noAuth}`);
  }
  try {
    await pullImage(client, image, pullAuth?.auth);
    return { ...ok(`${what} pulled${withAuth}`), pulled: true };
  } catch (e) {
    const message = errorMessage(e);
    return fatal(
      what,
      `cannot pull it${withAuth}: ${message}${pullAuth ? '' : credentialsHint(image, message, credentials)}. On an air-gapped node import it and use --pull never`,
    );
  }
}

/** What to do about credentials when the registry refused a pull that sent none. */
function credentialsHint(image: string, message: string, credentials: PullCredentials | undefined): string {
  if (!REFUSED.test(message)) return '';
  if (credentials) return `; ${credentials.noneFor(image)}`;
  return `; if ${registryOf(image).host} needs credentials, pass them with --pull-auth-file <docker config JSON>`;
}
