/** Waiting for SIGTERM: after `done` a DaemonSet's container must not exit, or it is restarted. */

/** Resolves when the signal aborts. Keeps the process alive until then, which an abort listener does not. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const keepAlive = setInterval(() => {}, 2 ** 30);
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(keepAlive);
        resolve();
      },
      { once: true },
    );
  });
}
