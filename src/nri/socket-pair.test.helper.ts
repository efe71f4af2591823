/**
 * A connected pair of unix stream sockets in a fresh temp dir, for tests of the wire layers. The dir is
 * short (mkdtemp under tmpdir with prefix 'cc-') because sun_path is limited to about 107 bytes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SocketPair {
  /** The dialing side. */
  client: Socket;
  /** The accepted side. */
  server: Socket;
  /** Destroys both sockets and removes the temp dir. */
  dispose(): Promise<void>;
}

/** A fresh temp dir for unix sockets; remove it with `rm(dir, { recursive: true })`. */
export function makeSocketDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'cc-'));
}

export async function socketPair(): Promise<SocketPair> {
  const dir = await makeSocketDir();
  const path = join(dir, 's.sock');
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(path, resolve));
  const accepted = new Promise<Socket>((resolve) => srv.once('connection', resolve));
  const client = createConnection(path);
  await new Promise<void>((resolve, reject) => {
    client.once('connect', resolve);
    client.once('error', reject);
  });
  const server = await accepted;
  srv.close();
  return {
    client,
    server,
    async dispose() {
      client.destroy();
      server.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
