import { expect } from 'chai';
import { sandboxShmMounts } from './sandbox-shm.js';

const SANDBOX = 'a5c725ada58f8f4f769776aed67979c3351672a83e44c91c2549d575a06d5451';
const STATE = '/run/containerd/io.containerd.grpc.v1.cri/sandboxes';
const MOUNTINFO = [
  '22 27 0:21 / /proc rw,relatime - proc proc rw',
  `610 27 0:71 / ${STATE}/${SANDBOX}/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k`,
  `611 27 0:72 / /run/containerd/io.containerd.runtime.v2.task/k8s.io/${SANDBOX}/rootfs rw - overlay overlay rw`,
  `612 27 0:73 / ${STATE}/someone-else/shm rw - tmpfs shm rw`,
].join('\n');

describe('the sandbox shm mounts cleanup --native may unmount', () => {
  it('takes only <state>/sandboxes/<id>/shm of the given ids and names every other mount of theirs', () => {
    expect(sandboxShmMounts(MOUNTINFO, [SANDBOX])).to.deep.equal({
      shm: [`${STATE}/${SANDBOX}/shm`],
      others: [`/run/containerd/io.containerd.runtime.v2.task/k8s.io/${SANDBOX}/rootfs`],
    });
  });

  it('touches nothing without ids', () => {
    expect(sandboxShmMounts(MOUNTINFO, [])).to.deep.equal({ shm: [], others: [] });
  });
});
