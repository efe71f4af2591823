import { expect } from 'chai';
import { UncopyableImage } from './containerd-image-copy.js';
import { type ImagePlan, MissingImage, settleNodeImages } from './image-plan.js';

const plan = (): ImagePlan => ({
  testImage: {
    ref: 'registry.example/busybox:1',
    source: 'node',
    names: ['registry.example/busybox:1'],
    sizeBytes: 1,
  },
  pauseImage: { ref: 'localhost/cri-conform/pause:1', source: 'bundled' },
  notes: [],
});
const partial = async (name: string) => {
  throw new UncopyableImage(`the layer sha256:ab of ${name} is not in the node's content store`);
};

describe('an image the node holds only in part', () => {
  it('stops the run with --pull never, saying why it cannot be copied', async () => {
    const err = await settleNodeImages(plan(), 'never', partial).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(MissingImage);
    expect((err as Error).message).to.match(
      /^the layer sha256:ab of registry\.example\/busybox:1 is not in the node's content store, so the private instance cannot copy/,
    );
  });

  it('is pulled by the copy where --pull allows, and the notes say so', async () => {
    const settled = await settleNodeImages(plan(), 'missing', partial);
    expect(settled.testImage).to.deep.equal({ ref: 'registry.example/busybox:1', source: 'pull' });
    expect(settled.pauseImage.source).to.equal('bundled');
    expect(settled.notes.join('\n')).to.match(
      /pulls it from its registry itself, with none of the node's credentials/,
    );
  });

  it('stays a copy from the node when the node holds it whole', async () => {
    const settled = await settleNodeImages(plan(), 'never', async () => undefined);
    expect(settled.testImage.source).to.equal('node');
  });
});
