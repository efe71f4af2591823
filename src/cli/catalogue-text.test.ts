import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ALL_CHECKS } from '../../suites/index.js';
import { catalogueMarkdown, REGENERATE_CATALOGUE } from './catalogue-text.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('the catalogue rendered from the checks', () => {
  it('is what docs/checks.md holds, so the committed catalogue never goes stale', () => {
    const committed = readFileSync(join(root, 'docs/checks.md'), 'utf8');
    expect(committed === catalogueMarkdown(ALL_CHECKS), `docs/checks.md is stale: ${REGENERATE_CATALOGUE}`).to
      .be.true;
  });

  it('has one table row per check, with its level, and escapes pipes inside cells', () => {
    const md = catalogueMarkdown(ALL_CHECKS);
    for (const c of ALL_CHECKS) expect(md).to.include(`| ${c.id} | ${c.level} |`);
    const [first] = ALL_CHECKS;
    if (!first) throw new Error('no checks');
    const piped = catalogueMarkdown([{ ...first, contract: 'a | b' }]);
    expect(piped).to.include('a \\| b');
  });

  it('marks the checks that run alone: hook stallers and restarts, not injector, NRI watcher or hook lane checks', () => {
    const md = catalogueMarkdown(ALL_CHECKS);
    const rowOf = (id: string) => md.split('\n').find((line) => line.startsWith(`| ${id} |`)) ?? '';
    for (const id of ['TEAR-04', 'TEAR-06', 'IDEM-13', 'TEAR-16', 'IDEM-15'])
      expect(rowOf(id)).to.include('runs alone');
    for (const id of ['IDEM-01', 'HOOK-01', 'TEAR-09', 'HOOK-03'])
      expect(rowOf(id)).to.not.include('runs alone');
    expect(rowOf('HOOK-03')).to.include('holds hooks in turn');
  });

  it('prints each check with the contract it cites under `list --long`', async () => {
    const io = recordingIo();
    expect(await main(['node', 'cri-conform', 'list', '--long', '--focus', '^HOOK-03 '], io)).to.equal(0);
    const hook03 = ALL_CHECKS.find((c) => c.id === 'HOOK-03');
    expect(io.stdout()).to.include(`contract: ${hook03?.contract}`);
    expect(io.stdout()).to.match(/^1 check$/m);
  });

  it('wraps `list --long` at 100 columns on a terminal, and keeps one line per field when piped', async () => {
    const longest = ALL_CHECKS.reduce((a, b) => (b.contract.length > a.contract.length ? b : a));
    expect(longest.contract.length, 'a contract longer than a line').to.be.above(200);
    const focus = ['--focus', `^${longest.id} `];
    const tty = { ...recordingIo(), isTTY: true };
    let shown = '';
    tty.out = (t: string) => {
      shown += t;
    };
    expect(await main(['node', 'cri-conform', 'list', '--long', ...focus], tty)).to.equal(0);
    const lines = shown.split('\n');
    expect(Math.max(...lines.map((l) => l.length))).to.be.at.most(100);
    const contract = lines.slice(lines.findIndex((l) => l.startsWith('  contract: ')));
    expect(contract[1]).to.match(/^ {12}\S/);
    const words = (s: string) => s.replace(/\s+/g, ' ').trim();
    expect(words(shown)).to.include(words(`contract: ${longest.contract}`));
    const piped = recordingIo();
    expect(await main(['node', 'cri-conform', 'list', '--long', ...focus], piped)).to.equal(0);
    expect(piped.stdout()).to.include(`  contract: ${longest.contract}\n`);
  });

  it('prints the Markdown under `list --markdown`', async () => {
    const io = recordingIo();
    expect(await main(['node', 'cri-conform', 'list', '--markdown'], io)).to.equal(0);
    expect(io.stdout()).to.equal(catalogueMarkdown(ALL_CHECKS));
  });
});
