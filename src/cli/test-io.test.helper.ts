/** An Io that records output, for running the CLI in process in tests. */
import type { Io } from './io.js';

export interface RecordingIo extends Io {
  stdout(): string;
  stderr(): string;
}

export function recordingIo(
  env: Record<string, string | undefined> = {},
  signal = new AbortController().signal,
): RecordingIo {
  let out = '';
  let err = '';
  return {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    isTTY: false,
    env,
    signal,
    stdout: () => out,
    stderr: () => err,
  };
}
