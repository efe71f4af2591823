/**
 * What to check before and while dialing, so a bad endpoint becomes a CriConnectError with a fix rather
 * than a gRPC stack: the socket file first, then the first Version call's outcome.
 */
import { statSync } from 'node:fs';
import { type Client, Metadata, status as Status } from '@grpc/grpc-js';
import type { Endpoint } from './endpoint.js';
import { CriConnectError, connectError } from './errors.js';
import { nonSocketKind } from './socket-file-kind.js';

/** Stats a unix socket path; throws the CriConnectError that names the problem. No-op for tcp targets. */
export function checkSocketFile(endpoint: Endpoint): void {
  if (endpoint.socketPath === undefined) return;
  try {
    const what = nonSocketKind(statSync(endpoint.socketPath));
    if (what)
      throw connectError('not-a-socket', endpoint.display, `${endpoint.socketPath} is ${what}, which`);
  } catch (e) {
    if (e instanceof CriConnectError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw connectError('unreachable', endpoint.display);
    if (code === 'EACCES' || code === 'EPERM')
      throw connectError('permission', endpoint.display, `stat: ${code}`);
    throw connectError('unreachable', endpoint.display, `stat: ${code ?? String(e)}`);
  }
}

/**
 * Maps the failure of the first Version call to a CriConnectError. `probeV1alpha2` is asked only when
 * runtime.v1 is UNIMPLEMENTED, to tell an old runtime from some other gRPC service.
 */
export async function classifyVersionFailure(
  e: { code: number; details: string },
  endpoint: Endpoint,
  timeoutMs: number,
  probeV1alpha2: () => Promise<boolean>,
): Promise<CriConnectError> {
  const details = e.details || Status[e.code] || String(e.code);
  switch (e.code) {
    case Status.DEADLINE_EXCEEDED:
      return connectError('timeout', endpoint.display, `no reply within ${timeoutMs} ms`);
    case Status.UNIMPLEMENTED:
      return (await probeV1alpha2())
        ? connectError('v1alpha2-only', endpoint.display)
        : connectError(
            'not-cri',
            endpoint.display,
            'gRPC, but runtime.v1.RuntimeService/Version is UNIMPLEMENTED',
          );
    case Status.UNAVAILABLE:
      if (/EACCES|EPERM/.test(details))
        return connectError('permission', endpoint.display, 'connect: EACCES');
      if (/ECONNREFUSED/.test(details))
        return connectError('unreachable', endpoint.display, refused(endpoint));
      if (/ENOENT/.test(details)) return connectError('unreachable', endpoint.display);
      return connectError('not-cri', endpoint.display, `the connection failed: ${oneLine(details)}`);
    default:
      return connectError('not-cri', endpoint.display, `${Status[e.code] ?? e.code}: ${oneLine(details)}`);
  }
}

/** A refused unix socket is a file its runtime left behind; a refused tcp endpoint has no file at all. */
function refused(endpoint: Endpoint): string {
  return endpoint.socketPath === undefined
    ? `connection refused: nothing listens on ${endpoint.display.replace(/^tcp:\/\//, '')}`
    : 'connection refused: a stale socket with no runtime behind it';
}

/** The runtime.v1alpha2 Version path; its empty request needs no proto (a zero-length message). */
const V1ALPHA2_VERSION = '/runtime.v1alpha2.RuntimeService/Version';

/** True when the endpoint answers v1alpha2 Version: OK, or a status that only a handler could have sent. */
export function answersV1alpha2(client: Client, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    client.makeUnaryRequest<Buffer, Buffer>(
      V1ALPHA2_VERSION,
      (b) => b,
      (b) => b,
      Buffer.alloc(0),
      new Metadata(),
      { deadline: Date.now() + timeoutMs },
      (err) => {
        resolve(!err || !NO_ANSWER.has(err.code));
      },
    );
  });
}

const NO_ANSWER = new Set<number>([
  Status.UNIMPLEMENTED,
  Status.UNAVAILABLE,
  Status.DEADLINE_EXCEEDED,
  Status.CANCELLED,
]);

/** grpc-js wraps the cause as "No connection established. Last error: <cause> (<time>). ..."; keep the cause. */
function oneLine(s: string): string {
  const cause = /Last error: (.*?)(?: \(\d{4}-\d\d-\d\dT[^)]*\))?\./.exec(s)?.[1];
  return (cause ?? s).replace(/\s+/g, ' ').trim().slice(0, 200);
}
