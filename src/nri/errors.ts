/**
 * The one error class of the NRI layer. Callers and tests branch on `code`, never on the message text.
 */

export type NriErrorCode =
  /** A mux frame header announced more than the reader accepts (checked before allocating). */
  | 'ERR_NRI_FRAME_TOO_LARGE'
  /** A ttrpc message is larger than 4 MiB (send side refused, or a response body was discarded). */
  | 'ERR_NRI_MESSAGE_TOO_LARGE'
  /** The peer broke the protocol: unknown message type, undecodable message, request on a client conn. */
  | 'ERR_NRI_PROTOCOL'
  /** A ttrpc call came back with a non-OK status; `status` holds the gRPC code. */
  | 'ERR_NRI_TTRPC_STATUS'
  /** We closed the connection (or the connection is already closed) while something was pending. */
  | 'ERR_NRI_CLOSED'
  /** The peer closed the connection (EOF) or the socket failed. */
  | 'ERR_NRI_PEER_CLOSED'
  /** A ttrpc call or a wait passed its deadline. */
  | 'ERR_NRI_TIMEOUT'
  /** The caller's AbortSignal fired. */
  | 'ERR_NRI_ABORTED'
  /** The NRI socket could not be dialed. */
  | 'ERR_NRI_CONNECT'
  /** The runtime refused, timed out or dropped the registration, or Configure/Synchronize failed. */
  | 'ERR_NRI_REGISTRATION'
  /** A crash fault closed the connection on purpose. */
  | 'ERR_NRI_CRASH_FAULT'
  /** Options given to the plugin or runtime side are invalid. */
  | 'ERR_NRI_INVALID_OPTIONS';

export class NriProtocolError extends Error {
  override readonly name = 'NriProtocolError';
  /** The gRPC status code, for ERR_NRI_TTRPC_STATUS. */
  readonly status: number | undefined;

  constructor(
    readonly code: NriErrorCode,
    message: string,
    opts: { status?: number; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.status = opts.status;
  }
}

/** True when `e` is an NriProtocolError with the given code. */
export function isNriError(e: unknown, code?: NriErrorCode): e is NriProtocolError {
  return e instanceof NriProtocolError && (code === undefined || e.code === code);
}

/** `e` or the first error in its `cause` chain with `code`: a failed registration wraps what broke it. */
export function nriCause(e: unknown, code: NriErrorCode): NriProtocolError | undefined {
  for (let c: unknown = e; c instanceof Error; c = c.cause) if (isNriError(c, code)) return c;
  return undefined;
}
