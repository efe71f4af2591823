/**
 * Endpoint strings as crictl accepts them, turned into a gRPC target. `unix:///run/x.sock` and a bare
 * `/run/x.sock` are the same local socket; `tcp://host:port` is a remote runtime (no file checks possible).
 */
import { CriConnectError } from './errors.js';

export interface Endpoint {
  /** What the user gave, normalised for messages: always `unix:///abs` for sockets. */
  display: string;
  /** The grpc-js target. */
  target: string;
  /** Set for unix sockets: the path to stat before dialing. */
  socketPath?: string;
}

/** Parses an endpoint; throws CriConnectError('bad-endpoint') for what cri-conform cannot dial (npipe, http, ...). */
export function parseEndpoint(raw: string): Endpoint {
  const value = raw.trim();
  if (value === '') throw badEndpoint('the runtime endpoint is empty');
  if (value.startsWith('/')) return unixEndpoint(value);
  if (value.startsWith('unix://')) {
    const path = value.slice('unix://'.length);
    if (!path.startsWith('/')) {
      throw badEndpoint(
        `${raw}: a unix endpoint needs an absolute path, e.g. unix:///run/containerd/containerd.sock`,
      );
    }
    return unixEndpoint(path);
  }
  if (value.startsWith('tcp://')) {
    const hostPort = value.slice('tcp://'.length).replace(/\/+$/, '');
    if (!/^[^/\s]+:\d+$/.test(hostPort)) throw badEndpoint(`${raw}: expected tcp://host:port`);
    return { display: `tcp://${hostPort}`, target: `dns:${hostPort}` };
  }
  throw badEndpoint(
    `${raw}: unsupported endpoint; use unix:///path/to/socket, a bare /path/to/socket, or tcp://host:port`,
  );
}

function unixEndpoint(path: string): Endpoint {
  // Collapse the extra slashes some configs carry (unix:////run/x.sock) so messages and targets agree.
  const clean = `/${path.replace(/^\/+/, '')}`;
  return { display: `unix://${clean}`, target: `unix://${clean}`, socketPath: clean };
}

function badEndpoint(what: string): CriConnectError {
  return new CriConnectError(
    'bad-endpoint',
    what,
    `${what}. Set --runtime-endpoint or CONTAINER_RUNTIME_ENDPOINT.`,
  );
}
