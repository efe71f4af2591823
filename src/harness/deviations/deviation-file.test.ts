import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { findPackageRoot } from '../../nri/package-root.js';
import { EnvironmentError } from '../core/errors.js';
import { loadBundledDeviations, loadDeviations, parseDeviations } from './deviation-file.js';

const ENTRY = `
- id: TEAR-05
  runtime: containerd
  versions: ">=1.7.0 <1.8.0"
  message: plugin 20 got .*; missing
  reason: the relay stops at the first plugin error
  link: https://github.com/containerd/containerd/issues/1
  proposal: https://github.com/containerd/nri/pull/286
`;

function rejection(text: string): string {
  try {
    parseDeviations(text, 'devs.yaml');
  } catch (e) {
    expect(e).to.be.instanceOf(EnvironmentError);
    return (e as Error).message;
  }
  throw new Error('parsed');
}

describe('the expected-deviations file', () => {
  it('reads the check, runtime, version range, message pattern, reason and both links of an entry', () => {
    const [d] = parseDeviations(ENTRY, 'devs.yaml');
    expect(d?.id).to.equal('TEAR-05');
    expect(d?.runtime).to.equal('containerd');
    expect(d?.versions.test('1.7.24~ds1')).to.equal(true);
    expect(
      d?.message.test('plugin 20 got [RunPodSandbox#1,\nCreateContainer#2]; missing StopPodSandbox'),
    ).to.equal(true);
    expect(d?.links).to.deep.equal([
      'https://github.com/containerd/containerd/issues/1',
      'https://github.com/containerd/nri/pull/286',
    ]);
    expect(d?.where).to.equal('devs.yaml entry 1');
  });

  it('accepts the list under a top-level "deviations" key, and an empty file', () => {
    expect(parseDeviations(`deviations:${ENTRY.replaceAll('\n', '\n  ')}`, 'd.yaml')).to.have.length(1);
    expect(parseDeviations('', 'd.yaml')).to.deep.equal([]);
  });

  it('requires every matching field and the tracking link, naming what is missing', () => {
    const noMessage = ENTRY.replace(/ {2}message:.*\n/, '');
    expect(rejection(noMessage)).to.match(/entry 1: missing message/);
    const noVersions = ENTRY.replace(/ {2}versions:.*\n/, '');
    expect(rejection(noVersions)).to.match(/missing versions/);
    const noLink = ENTRY.replace(/ {2}link:.*\n/, '');
    expect(rejection(noLink)).to.match(/missing link/);
  });

  it('names a key whose value is not a string instead of calling it missing', () => {
    expect(rejection(ENTRY.replace('id: TEAR-05', 'id: 5'))).to.match(
      /entry 1: key "id" must be a string, not 5/,
    );
    expect(rejection(ENTRY.replace('runtime: containerd', 'runtime: [a]'))).to.match(
      /entry 1: key "runtime" must be a string, not \["a"\]/,
    );
    expect(rejection(`${ENTRY.replace(/ {2}link:.*\n/, '')}  link: {url: x}\n`)).to.match(
      /key "link" must be/,
    );
    expect(rejection(ENTRY.replace('id: TEAR-05', 'id: 5'))).not.to.match(/missing/);
  });

  it('takes, for a bug no upstream issue tracks, the drafted report instead of a link, and a related issue', () => {
    const drafted = ENTRY.replace(
      / {2}link:.*\n {2}proposal:.*\n/,
      '  draft: docs/upstream/containerd-TEAR-05.md\n',
    );
    const [d] = parseDeviations(drafted, 'devs.yaml');
    expect(d?.draft).to.equal('docs/upstream/containerd-TEAR-05.md');
    expect(d?.links).to.deep.equal([]);
    const related = `${drafted}  related: https://github.com/containerd/containerd/issues/14083\n`;
    expect(parseDeviations(related, 'devs.yaml')[0]?.links).to.deep.equal([
      'https://github.com/containerd/containerd/issues/14083',
    ]);
  });

  it('refuses a draft beside a tracking link, a related issue without a draft, and a draft outside docs/upstream', () => {
    expect(rejection(`${ENTRY}  draft: docs/upstream/containerd-TEAR-05.md\n`)).to.match(
      /draft is for a bug no upstream issue tracks/,
    );
    expect(rejection(`${ENTRY}  related: https://example.com/2\n`)).to.match(/related goes with draft/);
    const elsewhere = ENTRY.replace(/ {2}link:.*\n {2}proposal:.*\n/, '  draft: notes/bug.md\n');
    expect(rejection(elsewhere)).to.match(/draft notes\/bug\.md is not a path such as docs\/upstream\//);
  });

  it('turns the old single "version" pattern into a pointer at "versions"', () => {
    expect(rejection(ENTRY.replace('versions:', 'version:'))).to.match(/"version" is now "versions"/);
  });

  it('rejects unknown keys, links that are not http(s), bad ranges and bad patterns in one line each', () => {
    expect(rejection(`${ENTRY}  note: x\n`)).to.match(/unknown key note/);
    expect(rejection(ENTRY.replace('TEAR-05', 'TEAR-5'))).to.match(/id TEAR-5 is not a check ID/);
    expect(rejection(ENTRY.replace('https://github.com/containerd/nri', 'ftp://x'))).to.match(/not an http/);
    expect(rejection(ENTRY.replace('>=1.7.0 <1.8.0', '>=1.7.x'))).to.match(/entry 1: .*>=1\.7\.x/);
    expect(rejection(ENTRY.replace('plugin 20 got .*', 'plugin ('))).to.match(/entry 1: Invalid regular/);
  });

  it('says which file it cannot read', () => {
    expect(() => loadDeviations('/nonexistent/devs.yaml')).to.throw(
      EnvironmentError,
      /\/nonexistent\/devs\.yaml/,
    );
  });

  it('ships containerd and CRI-O files whose entries follow their bugs: open while unfixed, ending at the fixing release', () => {
    const bundled = loadBundledDeviations();
    expect([...new Set(bundled.map((d) => d.runtime))].sort()).to.deep.equal(['containerd', 'cri-o']);
    const range = (runtime: string, id: string, message = '') =>
      bundled.find((d) => d.runtime === runtime && d.id === id && d.message.source.includes(message))
        ?.versions;
    // containerd 2.2.7 and 2.3.4 built from their tags still fail these for the same causes.
    for (const id of ['IDEM-03', 'IDEM-05', 'IDEM-15', 'TEAR-05', 'TEAR-08', 'TEAR-16']) {
      expect(range('containerd', id)?.test('2.3.4'), id).to.equal(true);
      expect(range('containerd', id)?.test('3.0.0'), id).to.equal(true);
    }
    // 2.2.6 carries the sandbox shutdown on Run hook failures (containerd#13644) and the ready check in
    // CreateContainer (containerd#13669); the shutdown brought the rollback race of TEAR-14.
    for (const id of ['IDEM-16', 'HOOK-11']) {
      expect(range('containerd', id)?.test('2.2.5'), id).to.equal(true);
      expect(range('containerd', id)?.test('2.2.6'), id).to.equal(false);
    }
    expect(range('containerd', 'TEAR-14', 'the host still holds')?.test('2.2.6')).to.equal(false);
    expect(range('containerd', 'TEAR-14', 'SANDBOX_NOTREADY')?.text).to.equal('>=2.2.6');
    // CRI-O: the conmon cgroup leak of a rolled-back sandbox stops showing in 1.34.0 (cri-o 3f4b82fa60).
    for (const id of ['IDEM-10', 'HOOK-05', 'TEAR-05', 'TEAR-08', 'TEAR-15']) {
      expect(range('cri-o', id)?.test('1.33.13'), id).to.equal(true);
      expect(range('cri-o', id)?.test('1.36.3'), id).to.equal(true);
    }
    expect(range('cri-o', 'TEAR-14')?.test('1.33.13')).to.equal(true);
    expect(range('cri-o', 'TEAR-14')?.test('1.34.0')).to.equal(false);
  });

  it('names a drafted report that exists for every entry no upstream issue tracks', () => {
    for (const d of loadBundledDeviations().filter((x) => x.draft)) {
      expect(existsSync(join(findPackageRoot(), d.draft ?? '')), `${d.where}: ${d.draft}`).to.equal(true);
    }
  });

  it('finds no bundled entries where the folder is absent', () => {
    expect(loadBundledDeviations('/nonexistent')).to.deep.equal([]);
  });
});
