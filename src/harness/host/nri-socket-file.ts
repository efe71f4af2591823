/**
 * Whether the NRI socket path can be a socket at all, checked before dialing: dialing a regular file or a
 * directory fails with ECONNREFUSED, which reads as a runtime whose NRI is off.
 */
import { statSync } from 'node:fs';
import { nonSocketKind } from '../../cri/socket-file-kind.js';

/** What is wrong with `socketPath` as the runtime's NRI socket, in one line with the fix; undefined if nothing. */
export function nriSocketProblem(socketPath: string): string | undefined {
  try {
    const kind = nonSocketKind(statSync(socketPath));
    return kind === undefined
      ? undefined
      : `--nri-socket ${socketPath} is ${kind}, not a unix socket: point it at the runtime's NRI socket (default /var/run/nri/nri.sock)`;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return `no NRI socket at ${socketPath}: enable NRI in the runtime (containerd: [plugins."io.containerd.nri.v1.nri"] disable = false; CRI-O: [crio.nri] enable_nri = true) or pass --nri-socket`;
    }
    return `cannot look at --nri-socket ${socketPath}: ${code ?? String(e)}; run as root on the node`;
  }
}
