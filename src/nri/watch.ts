/**
 * `cri-conform nri watch`: an observing plugin subscribed to every pod and container event the runtime
 * knows. It writes one line per event and answers each at once, never adjusting anything.
 */
import { NriPlugin } from './plugin.js';
import { NRI_EVENTS } from './types.js';
import { formatWatchLine } from './watch-format.js';

export interface WatchOptions {
  socketPath: string;
  name: string;
  index: string;
  json: boolean;
  write(line: string): void;
  signal: AbortSignal;
}

/**
 * Resolves when `signal` aborts (after closing the connection cleanly); rejects with the plugin's
 * NriProtocolError when registration fails or the runtime closes the connection.
 */
export async function watchEvents(opts: WatchOptions): Promise<void> {
  if (opts.signal.aborted) return;
  const plugin = await NriPlugin.start({
    socketPath: opts.socketPath,
    name: opts.name,
    index: opts.index,
    events: NRI_EVENTS,
    onEvent: (e) => opts.write(formatWatchLine(e, { json: opts.json })),
  });
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      plugin.close().then(resolve, reject);
    };
    opts.signal.addEventListener('abort', onAbort, { once: true });
    void plugin.closed.then((cause) => {
      if (!cause) return;
      opts.signal.removeEventListener('abort', onAbort);
      reject(cause);
    });
    if (opts.signal.aborted) onAbort();
  });
}
