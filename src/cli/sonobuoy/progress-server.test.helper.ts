/** A stand-in for Sonobuoy's worker sidecar: records what arrives at its progress port, and a wait. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProgressUpdate } from './progress.js';

export interface ReceivedPost {
  method: string;
  path: string;
  contentType: string;
  body: ProgressUpdate;
}

/** Listens on 127.0.0.1 at a free port; `hold` delays every answer until it resolves. */
export async function progressServer(opts: { hold?: Promise<void> } = {}) {
  const received: ReceivedPost[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (d: Buffer) => {
      text += d.toString();
    });
    req.on('end', async () => {
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: JSON.parse(text) as ProgressUpdate,
      });
      await opts.hold;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    received,
    get updates(): ProgressUpdate[] {
      return received.map((r) => r.body);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A port nothing listens on: bound once, then released. */
export async function closedPort(): Promise<number> {
  const s = await progressServer();
  await s.close();
  return s.port;
}

/** Polls `pred` every 50 ms until it holds; fails naming `what` (and the log, if given) at the deadline. */
export async function waitUntil(
  pred: () => boolean | Promise<boolean>,
  opts: { withinMs: number; what: string; log?: () => string },
): Promise<void> {
  const endAt = Date.now() + opts.withinMs;
  while (!(await pred())) {
    if (Date.now() > endAt) {
      throw new Error(
        `${opts.what} did not come within ${opts.withinMs} ms${opts.log ? `\n${opts.log()}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
