/** The runtime's mounts of an id are told by their place below the id, never by the id anywhere in a line. */
import { expect } from 'chai';
import { runtimeMountsOf } from './lost-mounts.js';

const ID = '369f084c'.padEnd(64, '0');
const OTHER = '4e1de3df'.padEnd(64, '0');

const line = (n: number, mountPoint: string, source = 'overlay') =>
  `${n} 25 0:${n} / ${mountPoint} rw,relatime - ${source} ${source} rw`;

describe("the runtime's mounts of the tool's lost ids", () => {
  it("are a container's rootfs and a sandbox's shm below the id, of the given ids only", () => {
    const mountinfo = [
      line(101, `/run/containerd/io.containerd.runtime.v2.task/k8s.io/${ID}/rootfs`),
      line(102, `/run/containerd/io.containerd.grpc.v1.cri/sandboxes/${ID}/shm`, 'shm'),
      line(103, `/run/containers/storage/overlay-containers/${ID}/userdata/shm`, 'shm'),
      line(104, `/run/containerd/io.containerd.runtime.v2.task/k8s.io/${OTHER}/rootfs`),
      // Names the id, but not as the runtime's mount of it: the node's, and left.
      line(105, `/var/lib/operator/${ID}`),
      '',
    ].join('\n');
    expect(runtimeMountsOf(mountinfo, [ID])).to.deep.equal([
      { mountPoint: `/run/containerd/io.containerd.runtime.v2.task/k8s.io/${ID}/rootfs`, id: ID },
      { mountPoint: `/run/containerd/io.containerd.grpc.v1.cri/sandboxes/${ID}/shm`, id: ID },
      { mountPoint: `/run/containers/storage/overlay-containers/${ID}/userdata/shm`, id: ID },
    ]);
  });
});
