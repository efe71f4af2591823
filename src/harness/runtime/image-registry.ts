/**
 * Which registry an image reference names, and which key of a docker config (`auths`) covers it, the way a
 * kubelet's keyring matches an imagePullSecret: the host by its dot-separated parts, each of which may be a
 * `*` glob (`*.example.com` is a subdomain, never `example.com` itself), the port exactly, and a key's path
 * as a prefix of the repository on a `/` boundary (`registry.example.com/team` covers `team/app`, not
 * `teams/app`). The most specific key wins.
 */

/** Docker Hub's names: a key for any of them covers an image named without a registry. */
const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

export interface RegistryPlace {
  /** The host, lower-cased, with the port when one is named: `registry.example.com:5000`. */
  host: string;
  /** The repository, or (for a key) the repository prefix it covers; '' for a whole registry. */
  path: string;
}

/** `busybox` is docker.io/library/busybox; a first part with a dot or a port, or `localhost`, is a host. */
export function registryOf(image: string): RegistryPlace {
  const name = image.split('@')[0] ?? image;
  const slash = name.indexOf('/');
  const first = slash < 0 ? '' : name.slice(0, slash);
  const isHost = first.includes('.') || first.includes(':') || first === 'localhost';
  const host = isHost ? first.toLowerCase() : 'docker.io';
  const repository = isHost ? name.slice(slash + 1) : slash < 0 ? `library/${name}` : name;
  // The tag is the part after the last colon of the last path part; a port lives in the host.
  const lastSlash = repository.lastIndexOf('/');
  const colon = repository.indexOf(':', lastSlash + 1);
  return { host: hubAlias(host), path: colon < 0 ? repository : repository.slice(0, colon) };
}

/**
 * A docker config key as a place: the scheme goes, and so does a bare API path (`/v1/`, `/v2/`), which the
 * Docker CLI writes (`https://index.docker.io/v1/`) and which names no repository.
 */
export function placeOfKey(key: string): RegistryPlace {
  const bare = key.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const slash = bare.indexOf('/');
  const host = (slash < 0 ? bare : bare.slice(0, slash)).toLowerCase();
  const path = slash < 0 ? '' : bare.slice(slash + 1).replace(/^\/+|\/+$/g, '');
  return { host: hubAlias(host), path: /^v[12]$/.test(path) ? '' : path };
}

/** Whether the key's place covers the image's. */
export function covers(key: RegistryPlace, image: RegistryPlace): boolean {
  const [keyName, keyPort] = splitPort(key.host);
  const [imageName, imagePort] = splitPort(image.host);
  if (keyPort !== imagePort) return false;
  const keyParts = keyName.split('.');
  const imageParts = imageName.split('.');
  if (keyParts.length !== imageParts.length) return false;
  if (!keyParts.every((part, i) => globPart(part).test(imageParts[i] ?? ''))) return false;
  return key.path === '' || image.path === key.path || image.path.startsWith(`${key.path}/`);
}

/** Orders keys that cover one image, most specific first: a longer path, then fewer host wildcards. */
export function bySpecificity(a: RegistryPlace, b: RegistryPlace): number {
  const depth = (p: RegistryPlace) => (p.path === '' ? 0 : p.path.split('/').length);
  const wildcards = (p: RegistryPlace) => p.host.split('*').length - 1;
  return depth(b) - depth(a) || wildcards(a) - wildcards(b);
}

export function describePlace(place: RegistryPlace): string {
  return place.path === '' ? place.host : `${place.host}/${place.path}`;
}

function hubAlias(host: string): string {
  return DOCKER_HUB.has(host) ? 'docker.io' : host;
}

function splitPort(host: string): [string, string] {
  const colon = host.lastIndexOf(':');
  return colon < 0 ? [host, ''] : [host.slice(0, colon), host.slice(colon + 1)];
}

function globPart(part: string): RegExp {
  const pattern = part
    .split('*')
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^.]*');
  return new RegExp(`^${pattern}$`);
}
