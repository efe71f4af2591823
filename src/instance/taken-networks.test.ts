import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { expect } from 'chai';
import { freeSubnets } from './network.js';
import { clashOf, ipVia, parsePrefix, resolvers, socketPeers, takenBy } from './taken-networks.js';

describe('the prefixes a private bridge must not overlap', () => {
  it('reads name servers and the peers of open sockets (little-endian hex)', () => {
    expect(
      resolvers('search x\nnameserver 10.96.0.10\nnameserver ::1\n', 'here').map((p) => p.source),
    ).to.deep.equal(['name server 10.96.0.10 (here)']);
    const tcp = `  sl  local_address rem_address   st
   0: 0100007F:1F90 00000000:0000 0A
   1: 0F02000A:A2C4 05D6D60A:01BB 01
`;
    const peers = socketPeers(tcp, 'the node');
    expect(peers.map((p) => p.source)).to.deep.equal(['a connection to 10.214.214.5 (the node)']);
    expect(clashOf(parsePrefix('10.214.214.0/24')!, peers)).to.equal(peers[0]);
    expect(clashOf(parsePrefix('10.214.215.0/24')!, peers)).to.equal(undefined);
  });

  describe('in a network namespace of its own', function () {
    this.timeout(20_000);
    let holder: ChildProcess | undefined;
    const inNs = (args: readonly string[]) => ({
      file: 'nsenter',
      args: ['-t', String(holder?.pid), '-n', 'ip', ...args],
    });
    before(async function () {
      if (process.getuid?.() !== 0) this.skip();
      holder = spawn('unshare', ['-n', 'sleep', '120'], { stdio: 'ignore' });
      await new Promise((r) => holder?.once('spawn', r));
      // unshare execs sleep after it made the namespace: wait until the pid's netns is a new one.
      const own = execFileSync('readlink', ['/proc/self/ns/net'], { encoding: 'utf8' });
      for (let i = 0; i < 100; i++) {
        const theirs = execFileSync('readlink', [`/proc/${holder.pid}/ns/net`], { encoding: 'utf8' });
        if (theirs !== own) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const ip = (...args: string[]) => execFileSync(inNs(args).file, inNs(args).args);
      ip('link', 'set', 'lo', 'up');
      ip('route', 'add', '10.214.0.0/17', 'dev', 'lo', 'table', '100');
      ip('rule', 'add', 'from', '10.214.200.0/24', 'lookup', '100');
    });
    after(() => holder?.kill('SIGKILL'));

    it('sees a route in another table and a policy rule that the main table does not show', () => {
      const main = execFileSync(inNs(['-4', 'route']).file, inNs(['-4', 'route']).args, { encoding: 'utf8' });
      expect(main).not.to.include('10.214');
      const taken = takenBy(
        ipVia((args) => inNs(args)),
        'test netns',
      );
      const sources = taken.map((p) => p.source);
      expect(sources).to.include('route 10.214.0.0/17 in table 100 (test netns)');
      expect(sources.some((s) => s.startsWith('policy rule') && s.includes('10.214.200.0/24'))).to.equal(
        true,
      );
      const offered = freeSubnets(taken, undefined, '/nonexistent/claims').map(
        (c) => (c.prefix.net >>> 8) & 0xff,
      );
      expect(
        offered.every((n) => n >= 128 && n !== 200),
        String(offered),
      ).to.equal(true);
    });
  });
});
