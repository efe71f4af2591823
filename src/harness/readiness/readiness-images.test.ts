import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status as Status } from '@grpc/grpc-js';
import { expect } from 'chai';
import { type FakeRuntime, grpcError, startFakeRuntime } from '../check/fake-runtime.test.helper.js';
import { PullCredentials } from '../runtime/pull-credentials.js';
import { imageFinding } from './readiness-images.js';

describe('the images a run pulls, with the credentials of --pull-auth-file', () => {
  let fake: FakeRuntime;
  const dir = mkdtempSync(join(tmpdir(), 'cc-pull-'));
  const authFile = join(dir, 'config.json');
  const IMAGE = 'registry.example.com/team/cri-conform-busybox:1';
  let pulls: { image: { image: string }; auth: Record<string, string> | null }[];
  before(() => {
    const auth = Buffer.from('robot:s3cret').toString('base64');
    writeFileSync(authFile, JSON.stringify({ auths: { 'registry.example.com': { auth } } }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(async () => {
    fake = await startFakeRuntime();
    pulls = [];
    fake.override('ImageStatus', () => ({ image: null }));
    fake.override('PullImage', (req) => {
      pulls.push(req as (typeof pulls)[number]);
      return { imageRef: 'sha256:pulled' };
    });
  });
  afterEach(() => fake.close());
  /** The finding for `image`, with the credentials of the test's file unless `anonymous`. */
  const find = (image: string, purpose: 'run' | 'doctor', anonymous = false) =>
    imageFinding(
      fake.client,
      image,
      '--test-image',
      { pull: 'missing' },
      purpose,
      anonymous ? undefined : PullCredentials.load(authFile),
    );

  it("sends the registry's credentials in PullImage, as a kubelet sends a pod's, and names only the key", async () => {
    const found = await find(IMAGE, 'run');
    expect(found).to.deep.equal({
      severity: 'ok',
      pulled: true,
      what: `image ${IMAGE} (--test-image) pulled with the credentials of registry.example.com (--pull-auth-file)`,
    });
    expect(pulls.map((p) => [p.image.image, p.auth?.username, p.auth?.password])).to.deep.equal([
      [IMAGE, 'robot', 's3cret'],
    ]);
    expect(JSON.stringify(found)).to.not.include('s3cret');
  });

  it('pulls another registry without credentials, and says the file has none for it when it is refused', async () => {
    fake.override('PullImage', (req) => {
      pulls.push(req as (typeof pulls)[number]);
      throw grpcError(
        Status.UNKNOWN,
        'failed to resolve reference: pulling from host quay.io failed with status code 401 Unauthorized',
      );
    });
    const found = await find('quay.io/team/app:1', 'run');
    expect(pulls[0]?.auth ?? null, 'no credentials sent').to.equal(null);
    expect(found.severity).to.equal('fatal');
    expect(found.fix).to.include(
      `401 Unauthorized; --pull-auth-file ${authFile} has no credentials for quay.io/team/app`,
    );
  });

  it('says how to pass credentials when a pull without a file is refused, and nothing of them for another failure', async () => {
    fake.override('PullImage', () => {
      throw grpcError(
        Status.UNKNOWN,
        'pull access denied, repository does not exist or may require authorization',
      );
    });
    const refused = await find(IMAGE, 'run', true);
    expect(refused.fix).to.match(
      /; if registry\.example\.com needs credentials, pass them with --pull-auth-file <docker config JSON>\. On an air-gapped node/,
    );
    fake.override('PullImage', () => {
      throw grpcError(Status.UNKNOWN, 'dial tcp: lookup registry.example.com: no such host');
    });
    const unreachable = await find(IMAGE, 'run', true);
    expect(unreachable.fix).to.not.include('--pull-auth-file');
  });

  it('doctor never pulls, and says which credentials the run will send', async () => {
    const found = await find(IMAGE, 'doctor');
    expect(pulls).to.deep.equal([]);
    expect(found.fix).to.equal(
      'it is not on the node; run pulls it first (--pull missing) with the credentials of registry.example.com (--pull-auth-file)',
    );
  });
});
