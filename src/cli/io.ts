/** The process's outside world, injected so the CLI runs in tests without spying on globals. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  isTTY: boolean;
  env: Record<string, string | undefined>;
  /** Aborted on SIGINT, SIGTERM and SIGHUP. */
  signal: AbortSignal;
}

export function realIo(signal: AbortSignal): Io {
  // A closed pipe (`cri-conform list | head`), or a terminal that hung up (EIO after SIGHUP), must not crash
  // a run mid-cleanup: stop writing to it instead.
  const closed = new Set<NodeJS.WriteStream>();
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE' && e.code !== 'EIO') throw e;
      closed.add(stream);
    });
  }
  const writeTo = (stream: NodeJS.WriteStream) => (t: string) => {
    if (!closed.has(stream)) stream.write(t);
  };
  return {
    out: writeTo(process.stdout),
    err: writeTo(process.stderr),
    isTTY: process.stdout.isTTY === true,
    env: process.env,
    signal,
  };
}

/** Honours --color/--no-color first, then NO_COLOR and FORCE_COLOR, then whether stdout is a terminal. */
export function useColor(flag: boolean | undefined, io: Pick<Io, 'env' | 'isTTY'>): boolean {
  if (flag !== undefined) return flag;
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined) return io.env.FORCE_COLOR !== '0';
  return io.isTTY;
}
