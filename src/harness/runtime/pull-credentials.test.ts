import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { EnvironmentError } from '../core/errors.js';
import { PullCredentials } from './pull-credentials.js';

describe('registry credentials from --pull-auth-file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-pull-auth-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const file = (content: unknown) => {
    const path = join(dir, `config-${++n}.json`);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const base64 = (text: string) => Buffer.from(text).toString('base64');

  it('sends the user and password of the most specific key that covers the image, and names only the key', () => {
    const credentials = PullCredentials.load(
      file({
        auths: {
          'registry.example.com': { auth: base64('robot:s3cr:et') },
          'registry.example.com/team': { username: 'team-bot', password: 'hunter2' },
          'https://index.docker.io/v1/': { identitytoken: 'tok' },
        },
      }),
    );
    expect(credentials.for('registry.example.com/ops/tool:1')).to.deep.equal({
      auth: { username: 'robot', password: 's3cr:et' },
      key: 'registry.example.com',
    });
    expect(credentials.for('registry.example.com/team/app:1')?.key).to.equal('registry.example.com/team');
    expect(credentials.for('busybox')).to.deep.equal({
      auth: { identityToken: 'tok' },
      key: 'https://index.docker.io/v1/',
    });
    expect(credentials.for('quay.io/team/app')).to.equal(undefined);
  });

  it('reads the legacy .dockercfg map, and skips the empty entries a credential helper leaves', () => {
    const legacy = PullCredentials.load(file({ 'quay.io': { auth: base64('a:b') } }));
    expect(legacy.for('quay.io/x/y')?.auth).to.deep.equal({ username: 'a', password: 'b' });
    const helper = PullCredentials.load(file({ auths: { 'quay.io': {} }, credsStore: 'desktop' }));
    expect(helper.for('quay.io/x/y')).to.equal(undefined);
    expect(helper.noneFor('quay.io/x/y')).to.match(
      /has no credentials for quay.io\/x\/y; credentials a credential helper keeps \(credsStore, credHelpers\) are not read/,
    );
  });

  it('stops the run with one line for a file it cannot use, and never repeats a secret', () => {
    const refused = (path: string) => {
      try {
        PullCredentials.load(path);
      } catch (e) {
        expect(e).to.be.instanceOf(EnvironmentError);
        return (e as Error).message;
      }
      throw new Error(`${path} was accepted`);
    };
    expect(refused(join(dir, 'absent.json'))).to.match(
      /^cannot read --pull-auth-file \S+ \(ENOENT\): pass a docker config JSON/,
    );
    expect(refused(file('{"auths":'))).to.match(/is not JSON \(/);
    expect(refused(file([]))).to.match(/is not a JSON object/);
    expect(refused(file({ auths: [] }))).to.match(/"auths" is not a map of registries/);
    const bad = refused(file({ auths: { 'quay.io': { auth: base64('no-colon-secret') } } }));
    expect(bad).to.match(/the entry "quay.io" has an auth that is not the base64 of user:password/);
    expect(bad).to.not.include('no-colon-secret');
    expect(refused(file({ auths: { 'quay.io': { password: 7 } } }))).to.match(
      /has a password that is not a string/,
    );
  });
});
