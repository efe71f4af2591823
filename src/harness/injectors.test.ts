import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { SkipSignal } from './errors.js';
import { CheckInjectors } from './injectors.js';

function dirs() {
  const root = mkdtempSync(join(tmpdir(), 'cc-'));
  return { slowRuntimeDir: mkdtempSync(join(root, 'rt-')), slowCniDir: mkdtempSync(join(root, 'cni-')) };
}

describe('check injectors', () => {
  it('lists every configured creation delay, the runtime create first, then network setup', () => {
    const d = dirs();
    const both = new CheckInjectors({ slowRuntimeHandler: 'conform-slow', ...d }, ['creation-delay']);
    expect(both.creationDelays().map((x) => [x.name, x.runtimeHandler])).to.deep.equal([
      ['slow runtime handler "conform-slow"', 'conform-slow'],
      ['slow CNI wrapper', ''],
    ]);
    const cniOnly = new CheckInjectors({ slowCniDir: d.slowCniDir }, ['creation-delay']);
    expect(cniOnly.creationDelays().map((x) => x.name)).to.deep.equal(['slow CNI wrapper']);
    expect(() => new CheckInjectors({}, ['creation-delay']).creationDelays()).to.throw(SkipSignal);
    expect(cniOnly.offers('slow-runtime')).to.be.a('string');
  });

  it('counts only the CNI DELs logged after the check took the injector, one entry per DEL', async () => {
    const d = dirs();
    const log = join(d.slowCniDir, 'del.log');
    writeFileSync(log, `${'a'.repeat(64)}\n`);
    const cni = new CheckInjectors(d, ['slow-cni']).slowCni();
    const id = 'b'.repeat(64);
    appendFileSync(log, `${id}\n${id}\n`);
    expect(await cni.deletedIds()).to.deep.equal([id, id]);
  });

  it('reads no DELs when the wrapper keeps no log', async () => {
    expect(await new CheckInjectors(dirs(), ['slow-cni']).slowCni().deletedIds()).to.deep.equal([]);
  });
});
