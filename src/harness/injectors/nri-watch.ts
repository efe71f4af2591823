/**
 * `nri watch` for the CLI, which reaches src/nri through the harness as every layer rule says. It tells a
 * --nri-socket that cannot be the runtime's NRI socket apart from a runtime whose NRI is off: the NRI
 * layer's errors say what broke, not which of the two the user has to fix.
 */
import { nriCause } from '../../nri/errors.js';
import { type WatchOptions, watchEvents } from '../../nri/watch.js';
import { EnvironmentError, errorMessage } from '../core/errors.js';
import { nriSocketProblem } from '../host/nri-socket-file.js';

export { PLUGIN_INDEX_PATTERN, PLUGIN_NAME_PATTERN } from '../../nri/plugin-options.js';

const NAME_THE_SOCKET = 'Pass --nri-socket or set CRI_CONFORM_NRI_SOCKET';

/** Watches until `opts.signal` aborts; every failure is an EnvironmentError that says what to fix. */
export async function watchNriEvents(opts: WatchOptions): Promise<void> {
  const problem = nriSocketProblem(opts.socketPath);
  if (problem !== undefined) throw new EnvironmentError(`nri watch: ${problem}`);
  try {
    await watchEvents(opts);
  } catch (e) {
    throw new EnvironmentError(whyWatchFailed(e, opts.socketPath));
  }
}

function whyWatchFailed(e: unknown, socketPath: string): string {
  // The first reply's header announced more than any NRI message holds: its bytes were another protocol's
  // (an HTTP status line, gRPC's HTTP/2 frames), so this is some other socket, not NRI switched off.
  const tooLarge = nriCause(e, 'ERR_NRI_FRAME_TOO_LARGE');
  if (tooLarge) {
    return `nri watch: ${socketPath} does not speak NRI (ttrpc over the NRI mux): its reply began with a ${tooLarge.message}. Is it the runtime's CRI socket or another service's? ${NAME_THE_SOCKET}`;
  }
  return `nri watch at ${socketPath}: ${errorMessage(e)}. Is NRI enabled in the runtime? ${NAME_THE_SOCKET}`;
}
