import { expect } from 'chai';
import { configArgOf, flavorOf, listeningInodes } from './node-daemon.js';

const PROC_NET_UNIX = `Num       RefCount Protocol Flags    Type St Inode Path
000000009c8a5155: 00000002 00000000 00010000 0001 01 102565 /run/containerd/containerd.sock.ttrpc
00000000236d6fec: 00000002 00000000 00010000 0001 01 102566 /run/containerd/containerd.sock
0000000011111111: 00000003 00000000 00000000 0001 03 102999 /run/containerd/containerd.sock
0000000022222222: 00000002 00000000 00010000 0001 01 200001 /tmp/other/containerd.sock
`;

describe("finding the node's daemon by its socket", () => {
  it('takes the inode of the listening socket bound to exactly that path, not a connected one', () => {
    expect(listeningInodes(PROC_NET_UNIX, '/run/containerd/containerd.sock')).to.deep.equal([102566]);
    expect(listeningInodes(PROC_NET_UNIX, '/run/containerd/none.sock')).to.deep.equal([]);
  });

  it('reads the config from each spelling of the flag', () => {
    expect(configArgOf(['containerd', '--config', '/a.toml'])).to.equal('/a.toml');
    expect(configArgOf(['containerd', '--config=/b.toml'])).to.equal('/b.toml');
    expect(configArgOf(['containerd', '-c', '/c.toml', '--log-level', 'debug'])).to.equal('/c.toml');
    expect(configArgOf(['containerd', '--log-level', 'debug'])).to.equal(undefined);
  });

  it('tells containerd, k3s containerd and CRI-O apart, and nothing else passes', () => {
    expect(flavorOf('/usr/bin/containerd', ['containerd'])).to.equal('containerd');
    expect(flavorOf('/usr/local/bin/k3s', ['containerd', '-c', 'x'])).to.equal('containerd');
    expect(flavorOf('/usr/bin/crio', ['crio'])).to.equal('crio');
    expect(flavorOf('/usr/bin/dockerd', ['dockerd'])).to.equal(undefined);
  });
});
