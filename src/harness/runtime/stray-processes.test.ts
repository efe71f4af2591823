/**
 * After the final sweep, a process that names one of the run's own ids, for an id neither the CRI nor the
 * runtime knows any more, is one the runtime lost (a shim of an abandoned create): the sweep stops it. A
 * process of an id still listed, or of an id the run never learnt as its own, is never touched.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { expect } from 'chai';
import { startFakeContainerd } from '../../cri/fake-containerd.test.helper.js';
import { socketDir } from '../../cri/fake-cri.test.helper.js';
import { NodeHostProbe } from './host-probe.js';
import { alive, exited, standInShim } from './stand-in-shim.test.helper.js';

describe("the final sweep's look for processes the runtime lost", () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });

  it('stops a process of an own id that nothing lists, and leaves the others alone', async () => {
    const [lost, listed, foreign] = [1, 2, 3].map(() => randomBytes(32).toString('hex')) as [
      string,
      string,
      string,
    ];
    const probe = new NodeHostProbe();
    probe.ownIds.add([lost, listed]);
    const [lostProc, listedProc, foreignProc] = await Promise.all([
      standInShim(lost),
      standInShim(listed),
      standInShim(foreign),
    ]);
    children.push(lostProc, listedProc, foreignProc);

    const strays = await probe.endStrays(new Set([listed]));
    await exited(lostProc);

    expect(strays.left).to.deep.equal([]);
    expect(strays.ended).to.have.length(1);
    expect(strays.ended[0]).to.match(new RegExp(`^pid ${lostProc.pid} \\(cc-test-shim -id ${lost}`));
    expect(lostProc.signalCode).to.equal('SIGKILL');
    expect([alive(listedProc), alive(foreignProc)]).to.deep.equal([true, true]);
  });

  it("never stops a process that only mentions a lost id, as an operator's tail or grep does", async () => {
    const lost = randomBytes(32).toString('hex');
    const probe = new NodeHostProbe();
    probe.ownIds.add([lost]);
    const looking = spawn('sleep', ['60'], { argv0: `tail -F /var/log/pods/${lost}/log`, stdio: 'ignore' });
    const grepping = spawn('sleep', ['60'], { argv0: `grep -c ${lost}`, stdio: 'ignore' });
    children.push(looking, grepping);
    await Promise.all([looking, grepping].map((c) => new Promise((resolve) => c.once('spawn', resolve))));

    expect(await probe.endStrays(new Set())).to.deep.equal({ ended: [], left: [], leftIds: [] });
    expect([alive(looking), alive(grepping)]).to.deep.equal([true, true]);
  });

  it('leaves a process whose id the runtime still records, and keeps the id for a later cleanup', async () => {
    const id = randomBytes(32).toString('hex');
    const sockets = socketDir();
    const socket = join(sockets.dir, 'containerd.sock');
    const containerd = await startFakeContainerd(socket, [], { containers: [{ id }] });
    try {
      const probe = new NodeHostProbe(`unix://${socket}`);
      probe.ownIds.add([id]);
      const shim = await standInShim(id);
      children.push(shim);
      // containerd still has the record: its own cleanup of the shim is not done (IDEM-14's window).
      expect(await probe.endStrays(new Set())).to.deep.equal({ ended: [], left: [], leftIds: [id] });
      expect(alive(shim)).to.equal(true);
    } finally {
      containerd.forceShutdown();
      sockets.remove();
    }
  });

  it('finds nothing to do when the run learnt no id', async () => {
    expect(await new NodeHostProbe().endStrays(new Set())).to.deep.equal({
      ended: [],
      left: [],
      leftIds: [],
    });
  });
});
