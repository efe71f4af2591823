/**
 * Registry credentials for the pulls a run makes (--pull-auth-file): a docker config, the format of an
 * imagePullSecret's `.dockerconfigjson`, `~/.docker/config.json` and podman's `auth.json`. On a node whose
 * kubelet gets its credentials from a credential provider or from pod secrets, the runtime holds none of
 * its own, and a PullImage without them is refused; a kubelet sends them in the call, and so does the run.
 * The secrets stay in the call: reports and messages name only the key that matched.
 */
import { readFileSync } from 'node:fs';
import type { AuthConfig } from '../../cri/types.js';
import { EnvironmentError } from '../core/errors.js';
import {
  bySpecificity,
  covers,
  describePlace,
  placeOfKey,
  type RegistryPlace,
  registryOf,
} from './image-registry.js';

const FORMAT =
  'pass a docker config JSON ({"auths": {"<registry>": {"auth": "<base64 user:password>"}}}, as in an imagePullSecret\'s .dockerconfigjson, ~/.docker/config.json or podman\'s auth.json)';

/** What a pull of one image sends, and which key of the file it came from. */
export interface PullAuth {
  auth: AuthConfig;
  /** The key that matched, for messages; never the secret. */
  key: string;
}

export class PullCredentials {
  private constructor(
    readonly file: string,
    private readonly entries: readonly { place: RegistryPlace; key: string; auth: AuthConfig }[],
    /** The file names a credential helper, whose secrets are not in it. */
    private readonly helpers: boolean,
  ) {}

  /** Reads and checks the file: a bad one stops the run before anything starts (exit 2). */
  static load(file: string): PullCredentials {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new EnvironmentError(
        `cannot read --pull-auth-file ${file} (${(e as NodeJS.ErrnoException).code}): ${FORMAT}`,
      );
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new EnvironmentError(`--pull-auth-file ${file} is not JSON (${(e as Error).message}): ${FORMAT}`);
    }
    if (!isRecord(doc))
      throw new EnvironmentError(`--pull-auth-file ${file} is not a JSON object: ${FORMAT}`);
    // The legacy .dockercfg format is the map of registries itself.
    const auths = 'auths' in doc ? doc.auths : 'credsStore' in doc || 'credHelpers' in doc ? {} : doc;
    if (!isRecord(auths))
      throw new EnvironmentError(`--pull-auth-file ${file}: "auths" is not a map of registries: ${FORMAT}`);
    const entries = Object.entries(auths).flatMap(([key, entry]) => {
      const auth = authOf(file, key, entry);
      return auth ? [{ place: placeOfKey(key), key, auth }] : [];
    });
    return new PullCredentials(file, entries, 'credsStore' in doc || 'credHelpers' in doc);
  }

  /** The credentials of the most specific key that covers the image, if any. */
  for(image: string): PullAuth | undefined {
    const place = registryOf(image);
    const match = this.entries
      .filter((e) => covers(e.place, place))
      .sort((a, b) => bySpecificity(a.place, b.place))[0];
    return match ? { auth: match.auth, key: match.key } : undefined;
  }

  /** Why an image gets no credentials from the file, for the message of a pull that was refused. */
  noneFor(image: string): string {
    const helper = this.helpers
      ? "; credentials a credential helper keeps (credsStore, credHelpers) are not read: export the registry's into the file"
      : '';
    return `--pull-auth-file ${this.file} has no credentials for ${describePlace(registryOf(image))}${helper}`;
  }
}

/** An entry as the CRI's AuthConfig; undefined for one with nothing to send (a credential helper's stub). */
function authOf(file: string, key: string, entry: unknown): AuthConfig | undefined {
  const bad = (why: string) =>
    new EnvironmentError(`--pull-auth-file ${file}: the entry "${key}" ${why}: ${FORMAT}`);
  if (!isRecord(entry)) throw bad('is not an object');
  const text = (name: string): string | undefined => {
    const v = entry[name];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw bad(`has a ${name} that is not a string`);
    return v;
  };
  const auth: AuthConfig = {};
  const encoded = text('auth');
  if (encoded !== undefined) {
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw bad('has an auth that is not the base64 of user:password');
    auth.username = decoded.slice(0, colon);
    auth.password = decoded.slice(colon + 1);
  }
  const username = text('username');
  const password = text('password');
  if (username !== undefined) auth.username = username;
  if (password !== undefined) auth.password = password;
  const identityToken = text('identitytoken');
  const registryToken = text('registrytoken');
  if (identityToken !== undefined) auth.identityToken = identityToken;
  if (registryToken !== undefined) auth.registryToken = registryToken;
  return Object.keys(auth).length > 0 ? auth : undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
