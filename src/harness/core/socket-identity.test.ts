import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { sameRuntime, socketIdentity } from './socket-identity.js';

describe('which runtime an endpoint names, by its socket file', () => {
  let root: string;
  let servers: Server[];
  /** A listening socket at `root + path`: `root` stands for the host root a worker pod mounts. */
  const listen = async (path: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(join(root, path), resolve));
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cc-sock-'));
    servers = [];
  });
  afterEach(() => {
    for (const s of servers) s.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('finds a node path through the host root, and a path under the host root on the node', async () => {
    await listen('/run/rt/rt.sock');
    const viaRoot = socketIdentity(`unix://${root}/run/rt/rt.sock`, root);
    expect(viaRoot).to.not.equal(undefined);
    expect(socketIdentity('unix:///run/rt/rt.sock', root)).to.deep.equal(viaRoot);
    expect(sameRuntime({ endpoint: `${root}/run/rt/rt.sock` }, 'unix:///run/rt/rt.sock', root)).to.equal(
      true,
    );
  });

  it('takes /var/run for /run, and follows symlinks', async () => {
    await listen('/run/rt/rt.sock');
    symlinkSync(join(root, 'run/rt/rt.sock'), join(root, 'link.sock'));
    expect(sameRuntime({ endpoint: '/var/run/rt/rt.sock' }, 'unix:///run/rt/rt.sock', root)).to.equal(true);
    expect(sameRuntime({ endpoint: `${root}/link.sock` }, '/run/rt/rt.sock', root)).to.equal(true);
  });

  it('tells two runtimes apart though their paths differ only in spelling', async () => {
    await listen('/run/a/rt.sock');
    await listen('/run/b/rt.sock');
    expect(sameRuntime({ endpoint: '/run/a/rt.sock' }, '/run/b/rt.sock', root)).to.equal(false);
    expect(sameRuntime({ endpoint: '/run/a/rt.sock' }, '/run/a/../b/rt.sock', root)).to.equal(false);
  });

  it('compares by the identity recorded at start once the runtime is down, else by the path on the node', async () => {
    await listen('/run/rt/rt.sock');
    const identity = socketIdentity('/run/rt/rt.sock', root);
    expect(sameRuntime({ endpoint: '/gone/rt.sock', identity }, '/run/rt/rt.sock', root)).to.equal(true);
    expect(sameRuntime({ endpoint: `${root}/var/run/down.sock` }, 'unix:///run/down.sock', root)).to.equal(
      true,
    );
    expect(sameRuntime({ endpoint: '/run/down.sock' }, '/run/other.sock', root)).to.equal(false);
    expect(sameRuntime({ endpoint: 'tcp://1.2.3.4:5' }, 'tcp://1.2.3.4:5', root)).to.equal(false);
  });
});
