/**
 * Finding the node's runtime from inside a pod: the usual CRI and NRI sockets of the host, looked up under
 * the mounted host root. Several CRI sockets can exist (a Docker-owned containerd beside CRI-O); then the
 * first that answers CRI wins, and the note names the others.
 */
import { EnvironmentError } from '../../harness/core/errors.js';
import { isSocket, resolveUnderRoot } from '../../harness/host/host-path.js';

export interface SocketCandidate {
  runtime: string;
  hostPath: string;
}

/** In order of preference; the paths are the runtimes' packaged defaults. */
export const CRI_CANDIDATES: readonly SocketCandidate[] = [
  { runtime: 'containerd', hostPath: '/run/containerd/containerd.sock' },
  { runtime: 'k3s containerd', hostPath: '/run/k3s/containerd/containerd.sock' },
  { runtime: 'CRI-O', hostPath: '/var/run/crio/crio.sock' },
];
export const NRI_HOST_SOCKET = '/var/run/nri/nri.sock';

export interface Discovery {
  runtimeEndpoint: string;
  nriSocket: string;
  /** One line each: what was picked, from where, and what was passed over. */
  notes: string[];
}

/** Resolves with the runtime's name and version when the endpoint answers CRI, undefined otherwise. */
export type CriProbe = (endpoint: string) => Promise<string | undefined>;

export async function discoverEndpoints(hostRoot: string, probe: CriProbe): Promise<Discovery> {
  const found = CRI_CANDIDATES.map((c) => ({ ...c, path: resolveUnderRoot(hostRoot, c.hostPath) })).filter(
    (c) => isSocket(c.path),
  );
  if (found.length === 0) {
    const looked = CRI_CANDIDATES.map((c) => `${c.runtime} ${c.hostPath}`).join(', ');
    throw new EnvironmentError(
      `no CRI socket of the host under ${hostRoot} (looked for ${looked}): mount the host's /run and /var/run at ${hostRoot}/run and ${hostRoot}/var/run (deploy/sonobuoy/cri-conform.yaml does), or set CONTAINER_RUNTIME_ENDPOINT to the socket's path in the container`,
    );
  }
  const notes: string[] = [];
  const picked = found.length === 1 ? found[0] : await firstAnswering(found, probe, notes);
  if (picked === undefined) {
    throw new EnvironmentError(
      `none of the CRI sockets found answers CRI (${found.map((c) => c.hostPath).join(', ')}): is the runtime running? Set CONTAINER_RUNTIME_ENDPOINT to pick one`,
    );
  }
  notes.unshift(`picked ${picked.runtime} at host ${picked.hostPath} (${picked.path})`);

  const nriPath = resolveUnderRoot(hostRoot, NRI_HOST_SOCKET);
  if (isSocket(nriPath)) notes.push(`picked NRI at host ${NRI_HOST_SOCKET} (${nriPath})`);
  else notes.push(`no NRI socket at host ${NRI_HOST_SOCKET}: NRI checks will skip with the reason`);
  return { runtimeEndpoint: `unix://${picked.path}`, nriSocket: nriPath, notes };
}

async function firstAnswering<C extends SocketCandidate & { path: string }>(
  found: readonly C[],
  probe: CriProbe,
  notes: string[],
): Promise<C | undefined> {
  let picked: C | undefined;
  for (const c of found) {
    const answer = await probe(`unix://${c.path}`);
    if (answer !== undefined && picked === undefined) picked = c;
    else
      notes.push(`passed over ${c.runtime} at ${c.hostPath}${answer ? ` (${answer})` : ': no CRI answer'}`);
  }
  return picked;
}
