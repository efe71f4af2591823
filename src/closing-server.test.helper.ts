/**
 * A unix-socket server for tests that closes the connections it accepted when it closes. `Server.close`
 * only stops accepting: a connection already accepted stays open until its peer ends it and its data has
 * been read, so a fake server that never reads what a client sent keeps the test process alive after the
 * tests have ended.
 */
import { createServer, type Server, type Socket } from 'node:net';

export interface ClosingServer {
  server: Server;
  /** Stops accepting, destroys every accepted connection still open, and resolves once all are gone. */
  close(): Promise<void>;
}

export async function listenClosing(
  path: string,
  onConnection: (socket: Socket) => void = () => undefined,
): Promise<ClosingServer> {
  const accepted = new Set<Socket>();
  const server = createServer((socket) => {
    accepted.add(socket);
    socket.once('close', () => accepted.delete(socket));
    onConnection(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of accepted) socket.destroy();
      }),
  };
}
