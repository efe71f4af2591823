/**
 * Cleanup removes the shim bundle and runc state of an own id that neither the CRI nor the runtime's
 * records know, once no process and no mount names it; anything of another id, of an id still known, or
 * reached through a link stays. The node is a tree in a temporary folder, seen through a NodeView.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status as Status } from '@grpc/grpc-js';
import { expect } from 'chai';
import { grpcError, startFakeRuntime } from '../check/fake-runtime.test.helper.js';
import { OwnIds } from '../core/own-ids.js';
import { NodeView } from '../host/node-view.js';
import { learnStateRoots, removeLostRuntimeState, taskDirsOf } from './lost-runtime-state.js';

const LOST = '5a1c0de5'.padEnd(64, '0');
const KNOWN = '6b2d1ef6'.padEnd(64, '0');
const FOREIGN = '7c3e2f07'.padEnd(64, '0');
const TASKS = '/run/containerd/io.containerd.runtime.v2.task';
const RUNC = '/run/containerd/runc';
const bundle = (id: string) => `${TASKS}/k8s.io/${id}`;
const runcState = (id: string, root = RUNC) => `${root}/k8s.io/${id}`;
const workDir = (id: string) => `/var/lib/containerd/io.containerd.runtime.v2.task/k8s.io/${id}`;

class NodeTree extends NodeView {
  readonly root = mkdtempSync(join(tmpdir(), 'cc-runtime-state-'));
  mounts: string[] = [];

  override path(nodePath: string): string {
    return join(this.root, nodePath);
  }

  override mountinfo(): string {
    return [
      ...this.mounts.map((m, i) => `${200 + i} 25 0:${90 + i} / ${m} rw - overlay overlay rw`),
      '',
    ].join('\n');
  }

  /** A bundle as the runc shim leaves it, with its `work` link into containerd's root (a node path). */
  makeBundle(id: string, options: object = {}, workTarget = workDir(id)): void {
    const dir = this.path(bundle(id));
    mkdirSync(join(dir, 'rootfs'), { recursive: true });
    writeFileSync(join(dir, 'config.json'), '{}');
    writeFileSync(join(dir, 'options.json'), JSON.stringify(options));
    mkdirSync(this.path(workTarget), { recursive: true });
    writeFileSync(this.path(`${workTarget}/kept`), '');
    symlinkSync(workTarget, join(dir, 'work'));
  }

  makeRuncState(id: string, root = RUNC): void {
    mkdirSync(this.path(runcState(id, root)), { recursive: true });
    writeFileSync(this.path(`${runcState(id, root)}/state.json`), '{}');
  }

  has(nodePath: string): boolean {
    return existsSync(this.path(nodePath));
  }
}

describe("the shim bundles and runc state of the tool's lost ids", () => {
  let node: NodeTree;
  let records: Set<string>;
  const probe = (own: readonly string[]) => {
    const ownIds = new OwnIds();
    ownIds.add(own);
    return { ownIds, recordedIds: async () => records };
  };
  const roots = { taskDirs: [TASKS], runcRoot: RUNC };
  const remove = (own: readonly string[], listed: readonly string[] = [], named: string[] = []) =>
    removeLostRuntimeState(new Set(listed), probe(own), roots, { view: node, namedByProcess: () => named });
  beforeEach(() => {
    node = new NodeTree();
    records = new Set();
  });
  afterEach(() => rmSync(node.root, { recursive: true, force: true }));

  it("are removed for a lost own id, runc's first and the bundle last, with the work dir its link names", async () => {
    node.makeBundle(LOST);
    node.makeRuncState(LOST);
    const state = await remove([LOST]);
    expect(state).to.deep.equal({
      removed: [runcState(LOST), workDir(LOST), bundle(LOST)],
      problems: [],
      leftIds: [],
    });
    expect([bundle(LOST), runcState(LOST), workDir(LOST)].filter((d) => node.has(d))).to.deep.equal([]);
  });

  it('never follow a work link to a dir the id and namespace do not name', async () => {
    node.makeBundle(LOST, {}, '/var/lib/somewhere-else');
    expect((await remove([LOST])).removed).to.deep.equal([bundle(LOST)]);
    expect(node.has('/var/lib/somewhere-else/kept')).to.equal(true);
  });

  it('stay for an id the runtime still records, kept for the next cleanup without a problem', async () => {
    node.makeBundle(KNOWN);
    node.makeRuncState(KNOWN);
    records.add(KNOWN);
    expect(await remove([KNOWN])).to.deep.equal({ removed: [], problems: [], leftIds: [KNOWN] });
    expect(node.has(runcState(KNOWN))).to.equal(true);
    expect(node.has(bundle(KNOWN))).to.equal(true);
  });

  it("stay for an id that is not the tool's, or that the CRI still lists", async () => {
    node.makeBundle(FOREIGN);
    node.makeRuncState(FOREIGN);
    node.makeBundle(KNOWN);
    expect(await remove([KNOWN], [KNOWN])).to.deep.equal({ removed: [], problems: [], leftIds: [] });
    expect(node.has(runcState(FOREIGN))).to.equal(true);
    expect(node.has(bundle(FOREIGN))).to.equal(true);
    expect(node.has(bundle(KNOWN))).to.equal(true);
  });

  it('stay while a mount below the bundle names the id, said as still mounted', async () => {
    node.makeBundle(LOST);
    node.makeRuncState(LOST);
    node.mounts = [`${bundle(LOST)}/rootfs`];
    const state = await remove([LOST]);
    expect(state.removed).to.deep.equal([]);
    expect(state.problems).to.deep.equal([
      `${runcState(LOST)} (still mounted: ${bundle(LOST)}/rootfs)`,
      `${workDir(LOST)} (kept with the rest of its id)`,
      `${bundle(LOST)} (kept with the rest of its id)`,
    ]);
    expect(state.leftIds).to.deep.equal([LOST]);
    expect(node.has(`${bundle(LOST)}/rootfs`)).to.equal(true);
  });

  it('stay while a living process names the id', async () => {
    node.makeBundle(LOST);
    const state = await remove([LOST], [], [LOST]);
    expect(state.problems).to.deep.equal([
      `${workDir(LOST)} (a living process still names its id)`,
      `${bundle(LOST)} (kept with the rest of its id)`,
    ]);
    expect(node.has(bundle(LOST))).to.equal(true);
  });

  it("take runc's state from the root the bundle's options.json names, in either spelling of the key", async () => {
    const other = '8d4f3018'.padEnd(64, '0');
    node.makeBundle(LOST, { binary_name: 'runc', root: '/run/custom-runc', systemd_cgroup: true });
    node.makeRuncState(LOST, '/run/custom-runc');
    node.makeBundle(other, { BinaryName: 'runc', Root: '/run/other-runc' });
    node.makeRuncState(other, '/run/other-runc');
    const state = await remove([LOST, other]);
    expect(state.removed).to.have.members([
      runcState(LOST, '/run/custom-runc'),
      workDir(LOST),
      bundle(LOST),
      runcState(other, '/run/other-runc'),
      workDir(other),
      bundle(other),
    ]);
    expect(state.problems).to.deep.equal([]);
  });

  it('keep a bundle whose options.json cannot be read, and its runc state, said why', async () => {
    node.makeBundle(LOST);
    node.makeRuncState(LOST);
    writeFileSync(node.path(`${bundle(LOST)}/options.json`), '{"root": ');
    const state = await remove([LOST]);
    expect(state.removed).to.deep.equal([]);
    expect(state.problems).to.deep.equal([
      `${bundle(LOST)} (options.json is not a JSON object, so where runc keeps its state is unknown)`,
    ]);
    expect(node.has(runcState(LOST))).to.equal(true);
  });

  it('never follow a link named like the id out of the runtime state', async () => {
    const outside = node.path('/srv/data');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'precious'), '');
    mkdirSync(node.path(`${RUNC}/k8s.io`), { recursive: true });
    symlinkSync(outside, node.path(runcState(LOST)));
    expect((await remove([LOST])).removed).to.deep.equal([]);
    expect(existsSync(join(outside, 'precious'))).to.equal(true);
  });

  it('say so, and keep the ids, where containerd could not say where its bundles are', async () => {
    node.makeRuncState(LOST);
    const unknown = { taskDirs: [], runcRoot: RUNC, unknownWhy: 'its verbose Status failed' };
    const opts = { view: node, namedByProcess: () => [] };
    const state = await removeLostRuntimeState(new Set(), probe([LOST]), unknown, opts);
    expect(state.removed).to.deep.equal([runcState(LOST)]);
    expect(state.problems).to.deep.equal([
      'the shim bundle of each of 1 lost ids, if any (where containerd keeps them is unknown: its verbose Status failed)',
    ]);
    expect(state.leftIds).to.deep.equal([LOST]);
  });

  it("stay when the runtime's records cannot be read, each said with why", async () => {
    node.makeBundle(LOST);
    const unread = {
      ownIds: probe([LOST]).ownIds,
      recordedIds: async () => ({ cannotTell: 'records unread' }),
    };
    const state = await removeLostRuntimeState(new Set(), unread, roots, { view: node });
    expect(state).to.deep.equal({
      removed: [],
      problems: [`${workDir(LOST)} (records unread)`, `${bundle(LOST)} (records unread)`],
      leftIds: [LOST],
    });
  });
});

describe("where containerd keeps its shims' bundles", () => {
  it("is beside the CRI plugin's stateDir, and above any container's rootfs mount point", () => {
    const config = JSON.stringify({ stateDir: '/var/run/containerd/io.containerd.grpc.v1.cri' });
    expect(
      taskDirsOf(config, [
        `/run/k3s/containerd/io.containerd.runtime.v2.task/k8s.io/${LOST}/rootfs`,
        `/run/containerd/io.containerd.grpc.v1.cri/sandboxes/${LOST}/shm`,
        '/run/containerd/io.containerd.runtime.v2.task/k8s.io',
      ]),
    ).to.deep.equal([
      '/var/run/containerd/io.containerd.runtime.v2.task',
      '/run/k3s/containerd/io.containerd.runtime.v2.task',
    ]);
  });

  it('is not guessed when neither names it', () => {
    // A runtime whose Status answers without the CRI plugin's stateDir is no containerd: nothing to look for.
    expect(taskDirsOf(undefined, ['/proc'])).to.deep.equal([]);
    expect(taskDirsOf(JSON.stringify({ stateDir: '/srv/state' }), [])).to.deep.equal([]);
  });

  it("is asked of the runtime's verbose Status, and unknown, said why, only when that fails", async () => {
    const node = new NodeTree();
    const fake = await startFakeRuntime();
    try {
      const stateDir = '/run/k0s/containerd/io.containerd.grpc.v1.cri';
      fake.override('Status', () => ({
        runtimeHandlers: [],
        info: { config: JSON.stringify({ stateDir }) },
      }));
      expect(await learnStateRoots(fake.client, [], node)).to.deep.equal({
        taskDirs: ['/run/k0s/containerd/io.containerd.runtime.v2.task'],
        runcRoot: '/run/containerd/runc',
      });
      fake.override('Status', () => ({ runtimeHandlers: [], info: {} }));
      expect((await learnStateRoots(fake.client, [], node)).unknownWhy).to.equal(undefined);
      fake.override('Status', () => {
        throw grpcError(Status.UNAVAILABLE, 'busy');
      });
      expect((await learnStateRoots(fake.client, [], node)).unknownWhy).to.match(
        /^its verbose Status failed \(/,
      );
      node.mounts = [`${bundle(LOST)}/rootfs`];
      expect(await learnStateRoots(fake.client, [], node)).to.deep.equal({
        taskDirs: [TASKS],
        runcRoot: RUNC,
      });
    } finally {
      await fake.close();
      rmSync(node.root, { recursive: true, force: true });
    }
  });
});
