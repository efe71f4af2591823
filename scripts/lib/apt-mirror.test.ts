/**
 * install-deps.sh finds the machine's Debian mirror in either apt source format (scripts/lib/apt-mirror.sh):
 * the one-line sources.list the bookworm installer writes, the deb822 debian.sources some images use, and
 * neither, which is one line saying what to add.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';

const LIB = resolve(import.meta.dirname, '../../../scripts/lib/apt-mirror.sh');

describe('install-deps.sh: the Debian mirror from the machine apt sources', () => {
  const root = mkdtempSync(join(tmpdir(), 'cc-apt-mirror-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  /** An /etc/apt with these files; the mirror debian_mirror prints, its stderr and status. */
  function discover(files: Record<string, string>) {
    const etc = mkdtempSync(join(root, 'etc-apt-'));
    mkdirSync(join(etc, 'sources.list.d'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(etc, name), text);
    const r = spawnSync('bash', ['-c', `. "${LIB}" && debian_mirror "$1"`, 'test', etc], {
      encoding: 'utf8',
    });
    return { mirror: r.stdout.trim(), stderr: r.stderr, status: r.status };
  }

  it('reads the one-line format of /etc/apt/sources.list (the bookworm installer)', () => {
    const r = discover({
      'sources.list': [
        '#deb cdrom:[Debian GNU/Linux 12.8.0 _Bookworm_]/ bookworm main',
        '',
        'deb http://security.debian.org/debian-security bookworm-security main',
        'deb-src http://ftp.de.debian.org/debian/ bookworm main',
        'deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://ftp.de.debian.org/debian/ bookworm main',
      ].join('\n'),
    });
    expect(r).to.deep.include({ mirror: 'http://ftp.de.debian.org/debian/', status: 0, stderr: '' });
  });

  it('reads the deb822 format of /etc/apt/sources.list.d/debian.sources, skipping its security stanza', () => {
    const r = discover({
      'sources.list.d/debian.sources': [
        'Types: deb',
        '# a snapshot mirror',
        'URIs: http://deb.debian.org/debian-security',
        'Suites: bookworm-security',
        'Components: main',
        '',
        'Types: deb',
        'URIs: http://mirror.example/debian',
        'Suites: bookworm bookworm-updates',
        'Components: main',
      ].join('\n'),
      // The source install-deps.sh writes itself names the mirror it was given: never read back.
      'sources.list.d/trixie.sources': 'Types: deb\nURIs: http://elsewhere.example/debian\nSuites: trixie\n',
    });
    expect(r).to.deep.include({ mirror: 'http://mirror.example/debian', status: 0 });
  });

  it('says in one line what to add when neither format names a Debian mirror', () => {
    const r = discover({
      'sources.list': 'deb http://security.debian.org/debian-security bookworm-security main\n',
    });
    expect(r.status).to.equal(1);
    expect(r.mirror).to.equal('');
    expect(r.stderr.trim().split('\n')).to.have.lengthOf(1);
    expect(r.stderr).to.match(
      /^install-deps\.sh: cannot find this machine's Debian mirror: neither .*sources\.list nor .*sources\.list\.d\/\*\.sources has a 'deb' entry; add one \(e\.g\. deb http:\/\/deb\.debian\.org\/debian bookworm main\) and run it again\n$/,
    );
    expect(discover({}).status).to.equal(1);
  });
});
