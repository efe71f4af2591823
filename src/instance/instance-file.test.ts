import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  type InstanceFile,
  indexInstance,
  orphanedInstances,
  recordedInstances,
  selfAsOwner,
  unindexInstance,
  writeInstanceFile,
} from './instance-file.js';

describe('the records of private instances, and which are of dead runs', () => {
  let root: string;
  let places: { index: string; bases: string[] };
  let server: Server;
  let socket: string;
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'cc-records-'));
    places = { index: join(root, 'index'), bases: [join(root, 'base')] };
    socket = join(root, 'rt.sock');
    server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
  });
  afterEach(() => {
    server.close();
    rmSync(root, { recursive: true, force: true });
  });

  const exited = () => ({ ...selfAsOwner(), pid: spawnSync('true').pid as number });
  /** An instance recorded in `dir` for `target`, owned by `owner`. */
  const instance = (dir: string, target: string, owner: InstanceFile['owner']) => {
    mkdirSync(dir, { recursive: true });
    const id = dir.split('/').at(-1) ?? '';
    writeInstanceFile(dir, {
      id,
      target,
      owner,
      binary: '/usr/bin/containerd',
      path: '/usr/bin',
      runcBinary: '/usr/sbin/runc',
      network: { number: 0, bridge: '', subnet: '', name: '' },
    });
    return id;
  };

  it('finds instances through the index wherever their directories are, and in the old base', () => {
    const elsewhere = join(root, 'var-lib', 'i1');
    indexInstance(instance(elsewhere, socket, exited()), elsewhere, places.index);
    instance(join(root, 'base', 'i2'), socket, exited());
    const dirs = recordedInstances(places).map((r) => r.dir);
    expect(dirs).to.have.members([elsewhere, join(root, 'base', 'i2')]);
  });

  it('takes only instances whose run is gone, never one whose run still runs', () => {
    instance(join(root, 'base', 'dead'), socket, exited());
    instance(join(root, 'base', 'live'), socket, selfAsOwner());
    instance(join(root, 'base', 'old-dead'), socket, { pid: exited().pid, startTime: '1' });
    expect(
      orphanedInstances(undefined, places)
        .map((r) => r.info.id)
        .sort(),
    ).to.deep.equal(['dead', 'old-dead']);
  });

  it('matches the target by its socket file: /var/run and unix:// spellings of the same runtime', () => {
    instance(join(root, 'base', 'mine'), `unix://${socket}`, exited());
    instance(join(root, 'base', 'other'), join(root, 'other.sock'), exited());
    expect(orphanedInstances(socket, places).map((r) => r.info.id)).to.deep.equal(['mine']);
  });

  it('takes an instance out of the index only for its own directory, and drops entries whose record is gone', () => {
    const dir = join(root, 'base', 'i3');
    const id = instance(dir, socket, exited());
    indexInstance(id, dir, places.index);
    unindexInstance(id, join(root, 'someone-else'), places.index);
    expect(readlinkSync(join(places.index, id))).to.equal(dir);
    rmSync(dir, { recursive: true });
    expect(recordedInstances(places)).to.deep.equal([]);
    expect(existsSync(join(places.index, id))).to.equal(false);
  });
});
