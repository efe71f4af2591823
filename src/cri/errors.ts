/**
 * The two ways the CRI layer fails. Both carry a stable `code`; callers branch on the class, `code`, `kind`
 * or `status`, never on the message text, which is written for people.
 */
import { status as Status } from '@grpc/grpc-js';
import type { CriMethod } from './types.js';

/** A CRI call that ended with a non-OK gRPC status (including deadline and cancellation). */
export class CriCallError extends Error {
  readonly code = 'ERR_CRI_CALL';

  /**
   * @param status the gRPC status number; `statusName` is its name ('DEADLINE_EXCEEDED').
   * @param details the runtime's (or grpc-js's) status message, unchanged.
   * @param deadlineMs the deadline the call was given; undefined when it had none.
   */
  constructor(
    readonly method: CriMethod,
    readonly status: number,
    readonly statusName: string,
    readonly details: string,
    readonly elapsedMs: number,
    readonly deadlineMs: number | undefined,
  ) {
    super(
      `${method}: ${statusName} (${status}) after ${Math.round(elapsedMs)}/${deadlineMs === undefined ? 'no deadline' : Math.round(deadlineMs)} ms: ${details}`,
    );
    this.name = 'CriCallError';
  }
}

/** The name of a gRPC status number, e.g. 4 -> 'DEADLINE_EXCEEDED'; unknown numbers stay visible. */
export function statusName(code: number): string {
  return Status[code] ?? `STATUS_${code}`;
}

export type CriConnectErrorKind =
  | 'bad-endpoint' // the endpoint string itself cannot be dialed
  | 'unreachable' // nothing listens: no socket file, or connection refused
  | 'permission' // the socket exists but this user may not open it
  | 'not-a-socket' // the path is a regular file or directory
  | 'not-cri' // something answers, but not CRI v1 over gRPC
  | 'v1alpha2-only' // a CRI runtime too old for runtime.v1
  | 'timeout'; // connected, but Version did not answer in time

/** Connecting failed before any check could run. The message says what is wrong and what to do. */
export class CriConnectError extends Error {
  readonly code = 'ERR_CRI_CONNECT';

  constructor(
    readonly kind: CriConnectErrorKind,
    readonly endpoint: string,
    message: string,
  ) {
    super(message);
    this.name = 'CriConnectError';
  }
}

const SET_ENDPOINT = 'Set --runtime-endpoint or CONTAINER_RUNTIME_ENDPOINT.';

/** Builds the one-line message for each kind. `detail` is what was observed (an errno, a status). */
export function connectError(
  kind: Exclude<CriConnectErrorKind, 'bad-endpoint'>,
  endpoint: string,
  detail = '',
): CriConnectError {
  const why = detail ? ` (${detail})` : '';
  switch (kind) {
    case 'unreachable':
      return new CriConnectError(
        kind,
        endpoint,
        `cannot connect to ${endpoint}: ${detail || 'no such socket'}. Is the runtime running? ${SET_ENDPOINT}`,
      );
    case 'permission':
      return new CriConnectError(
        kind,
        endpoint,
        `cannot connect to ${endpoint}: permission denied${why}. Run cri-conform as root (or as a member of the socket's group).`,
      );
    case 'not-a-socket':
      return new CriConnectError(
        kind,
        endpoint,
        `cannot connect to ${endpoint}: ${detail || 'the path'} is not a unix socket. Point it at the runtime's CRI socket. ${SET_ENDPOINT}`,
      );
    case 'not-cri':
      return new CriConnectError(
        kind,
        endpoint,
        `${endpoint} does not speak CRI v1 over gRPC${why}. Is this the runtime's CRI socket (not an NRI, shim or ttrpc socket)? ${SET_ENDPOINT}`,
      );
    case 'v1alpha2-only':
      return new CriConnectError(
        kind,
        endpoint,
        `${endpoint} serves only the deprecated CRI v1alpha2 API; cri-conform needs runtime.v1. Upgrade the runtime (e.g. containerd 1.6 or newer).`,
      );
    case 'timeout':
      return new CriConnectError(
        kind,
        endpoint,
        `${endpoint} did not answer Version${why}. Is the runtime starting or hung? Check its logs, or try \`crictl --runtime-endpoint ${endpoint} version\`.`,
      );
  }
}
