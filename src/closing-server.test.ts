import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { listenClosing } from './closing-server.test.helper.js';

describe('a test server that closes what it accepted', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cc-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('closes a connection whose data nobody read, which Server.close alone leaves open', async () => {
    let accepted: (socket: Socket) => void = () => undefined;
    const serverSide = new Promise<Socket>((resolve) => (accepted = resolve));
    const closing = await listenClosing(join(dir, 's.sock'), (socket) => accepted(socket));
    const client = createConnection(join(dir, 's.sock'));
    client.write('unread');
    const unread = await serverSide;
    const clientClosed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.on('error', () => undefined);
    await closing.close();
    await clientClosed;
    expect(unread.destroyed).to.equal(true);
    expect(closing.server.listening).to.equal(false);
  });
});
