import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { inSuite } from '../check/check.js';
import { staticSkipReason } from '../check/selection.js';
import { sharingGroup } from '../check/sharing.js';
import { CheckInjectors } from '../injectors/injectors.js';
import { SkipSignal } from './errors.js';
import { injectorFor, missingInjectors } from './injector-needs.js';

describe('injector needs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const both = { slowRuntimeHandler: 'conform-slow', slowRuntimeDir: dir, slowCniDir: dir };

  it('meets a creation delay with the slow handler first, else the slow CNI', () => {
    expect(injectorFor('creation-delay', both)).to.deep.equal({ kind: 'runtime' });
    expect(injectorFor('creation-delay', { slowCniDir: dir })).to.deep.equal({ kind: 'cni' });
    expect(injectorFor('slow-runtime', { slowCniDir: dir }))
      .to.have.property('missing')
      .that.match(/--slow-runtime-handler/);
  });

  it('lets a check with an injector need share the runtime, and skips it before it starts when the need is unmet', () => {
    const [check] = inSuite('idempotency', [
      {
        id: 'IDEM-99',
        level: 'MUST',
        clauses: {},
        needs: ['slow-runtime'],
        title: 't',
        contract: 'c',
        run: async () => {},
      },
    ]);
    if (!check) throw new Error('no check');
    expect(sharingGroup(check)).to.equal('injectors');
    const reason = staticSkipReason(check, { slow: false, injectors: missingInjectors({ slowCniDir: dir }) });
    expect(reason).to.equal((injectorFor('slow-runtime', {}) as { missing: string }).missing);
    expect(staticSkipReason(check, { slow: false, injectors: missingInjectors(both) })).to.equal(undefined);
  });

  it('refuses an injector the check did not declare, so no skip escapes the forecast', () => {
    const injectors = new CheckInjectors(both, ['nri'], 'cc-x-');
    expect(() => injectors.slowRuntime()).to.throw(/without declaring it: add 'slow-runtime'/);
    expect(() => injectors.creationDelay()).to.throw(/add 'creation-delay'/);
  });

  it('skips with the same reason the forecast gives when a declared injector is missing', () => {
    const injectors = new CheckInjectors({}, ['creation-delay'], 'cc-x-');
    expect(() => injectors.creationDelay())
      .to.throw(SkipSignal)
      .with.property('message', missingInjectors({})['creation-delay']);
  });
});
