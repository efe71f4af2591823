import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { EnvironmentError } from '../../harness/core/errors.js';
import { resolveUnderRoot } from '../../harness/host/host-path.js';
import { discoverEndpoints } from './discovery.js';

describe('finding the host runtime under a mounted host root', () => {
  let root: string;
  const servers: Server[] = [];
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cc-'));
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
    rmSync(root, { recursive: true, force: true });
  });

  async function socketAt(hostPath: string): Promise<void> {
    const path = join(root, hostPath);
    mkdirSync(dirname(path), { recursive: true });
    const server = createServer();
    await new Promise<void>((r) => server.listen(path, r));
    servers.push(server);
  }

  it('follows an absolute host symlink (/var/run -> /run) inside the root, not in the container', async () => {
    await socketAt('run/nri/nri.sock');
    mkdirSync(join(root, 'var'));
    symlinkSync('/run', join(root, 'var/run'));
    expect(resolveUnderRoot(root, '/var/run/nri/nri.sock')).to.equal(join(root, 'run/nri/nri.sock'));
  });

  it('never leaves the root through ..', () => {
    mkdirSync(join(root, 'etc'));
    symlinkSync('../../../../outside', join(root, 'etc/link'));
    expect(resolveUnderRoot(root, '/etc/link/x')).to.equal(join(root, 'outside/x'));
  });

  it('with one socket takes it without dialing, and says which and where', async () => {
    await socketAt('var/run/crio/crio.sock');
    await socketAt('var/run/nri/nri.sock');
    const found = await discoverEndpoints(root, async () => {
      throw new Error('no probe needed for a single socket');
    });
    expect(found.runtimeEndpoint).to.equal(`unix://${join(root, 'var/run/crio/crio.sock')}`);
    expect(found.nriSocket).to.equal(join(root, 'var/run/nri/nri.sock'));
    expect(found.notes[0]).to.equal(
      `picked CRI-O at host /var/run/crio/crio.sock (${join(root, 'var/run/crio/crio.sock')})`,
    );
  });

  it('with several sockets takes the first that answers CRI and names the ones passed over', async () => {
    await socketAt('run/containerd/containerd.sock');
    await socketAt('var/run/crio/crio.sock');
    const found = await discoverEndpoints(root, async (endpoint) =>
      endpoint.endsWith('crio.sock') ? 'cri-o 1.31.0' : undefined,
    );
    expect(found.runtimeEndpoint).to.match(/crio\.sock$/);
    expect(found.notes).to.include(
      'passed over containerd at /run/containerd/containerd.sock: no CRI answer',
    );
    expect(found.notes.at(-1)).to.match(
      /^no NRI socket at host \/var\/run\/nri\/nri\.sock: NRI checks will skip/,
    );
  });

  it('without any socket fails with what to mount', async () => {
    const err = await discoverEndpoints(root, async () => undefined).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(EnvironmentError).with.property('code', 'ERR_ENVIRONMENT');
    expect((err as Error).message).to.include(`mount the host's /run and /var/run at ${root}/run`);
  });
});
