import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { SkipSignal } from '../core/errors.js';
import { CheckInjectors } from './injectors.js';

const made: string[] = [];
after(() => {
  for (const root of made) rmSync(root, { recursive: true, force: true });
});

function dirs() {
  const root = mkdtempSync(join(tmpdir(), 'cc-'));
  made.push(root);
  return { slowRuntimeDir: mkdtempSync(join(root, 'rt-')), slowCniDir: mkdtempSync(join(root, 'cni-')) };
}

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('check injectors', () => {
  it('lists every configured creation delay, the runtime create first, then network setup', () => {
    const d = dirs();
    const both = new CheckInjectors(
      { slowRuntimeHandler: 'conform-slow', ...d },
      ['creation-delay'],
      'cc-x-',
    );
    expect(both.creationDelays().map((x) => [x.name, x.runtimeHandler])).to.deep.equal([
      ['slow runtime handler "conform-slow"', 'conform-slow'],
      ['slow CNI wrapper', ''],
    ]);
    const cniOnly = new CheckInjectors({ slowCniDir: d.slowCniDir }, ['creation-delay'], 'cc-x-', [
      'slow-runtime',
    ]);
    expect(cniOnly.creationDelays().map((x) => x.name)).to.deep.equal(['slow CNI wrapper']);
    expect(() => new CheckInjectors({}, ['creation-delay'], 'cc-x-').creationDelays()).to.throw(SkipSignal);
    expect(cniOnly.offers('slow-runtime')).to.be.a('string');
  });

  it('arms a delay or a CNI failure after a rest only once the run hands the runtime back', async () => {
    const d = dirs();
    const calls: string[] = [];
    const turn = {
      rest: () => calls.push('rest'),
      resume: async () => {
        calls.push('resume');
      },
    };
    const inject = new CheckInjectors(
      { slowRuntimeHandler: 'conform-slow', ...d },
      ['slow-runtime', 'slow-cni'],
      'cc-x-',
      [],
      () => undefined,
      { turn, signal: new AbortController().signal },
    );
    const slow = inject.slowRuntime();
    const cni = inject.slowCni();
    await slow.setDelay(0);
    inject.doneHolding();
    await slow.setDelay(0);
    await cni.setFail(false);
    expect(calls).to.deep.equal(['rest']);
    await slow.setDelay(750);
    await cni.setDelay(750);
    await cni.setFail(true);
    expect(calls).to.deep.equal(['rest', 'resume', 'resume', 'resume']);
    await inject.reset();
  });

  it('refuses an offer the check did not declare in its uses, so doctor knows every user of an injector', () => {
    const inject = new CheckInjectors(dirs(), [], 'cc-x-', ['slow-cni']);
    expect(inject.offers('slow-cni')).to.equal(undefined);
    expect(() => inject.offers('slow-runtime')).to.throw(/add 'slow-runtime' to its uses/);
    const delays = new CheckInjectors(dirs(), ['creation-delay'], 'cc-x-');
    expect(delays.offers('slow-cni'), 'a creation-delay check may take either').to.equal(undefined);
  });

  it('counts only the CNI DELs of its own pods logged after the check took the injector', async () => {
    const d = dirs();
    const log = join(d.slowCniDir, 'del.log');
    writeFileSync(log, `${A} cc-x-\n`);
    const cni = new CheckInjectors(d, ['slow-cni'], 'cc-x-').slowCni();
    appendFileSync(log, `${B} cc-x-\n${A} cc-y-\n${A} \n${B} cc-x-\n`);
    expect(await cni.deletedIds()).to.deep.equal([B, B]);
  });

  it('reads a log made anew since the check took the injector from its start', async () => {
    const d = dirs();
    const log = join(d.slowCniDir, 'del.log');
    writeFileSync(log, `${A} cc-x-\n${A} cc-x-\n`);
    const cni = new CheckInjectors(d, ['slow-cni'], 'cc-x-').slowCni();
    appendFileSync(log, `${B} cc-x-\n`);
    expect(await cni.deletedIds()).to.deep.equal([B]);
    writeFileSync(log, `${B} cc-x-\n`);
    expect(await cni.deletedIds(), 'a log shorter than at the claim').to.deep.equal([B]);
  });

  it("says when the slow runtime handler was reached by the caller's next create, from the wrapper's log", async () => {
    const d = dirs();
    const log = join(d.slowRuntimeDir, 'created.log');
    const now = () => Date.now() / 1000;
    writeFileSync(log, `${now() - 60} ${A} cc-x-\n`);
    const slow = new CheckInjectors({ slowRuntimeHandler: 'conform-slow', ...d }, ['slow-runtime'], 'cc-x-');
    const reach = slow.slowRuntime().watchReach();
    expect(await reach(), 'the line from before the watch').to.equal('not reached');
    const loggedAt = performance.now() - 250;
    appendFileSync(log, `${now() - 0.25} ${B} cc-y-\n${now() - 0.25} ${B} cc-x-\n${now()} ${A} cc-x-\n`);
    const reached = await reach();
    expect(reached).to.have.property('atMs').closeTo(loggedAt, 50);
    const untimed = slow.slowRuntime().watchReach();
    appendFileSync(log, `at-noon ${A} cc-x-\n`);
    expect(await untimed(), "a wrapper of the user's that logs no time").to.equal('untimed');
  });

  it("hands the ids the wrappers logged for the check's pods to the run as its own, and no others", async () => {
    const d = dirs();
    const learnt: string[] = [];
    const config = { slowRuntimeHandler: 'conform-slow', ...d };
    const x = new CheckInjectors(
      config,
      ['slow-runtime', 'slow-cni'],
      'cc-x-',
      [],
      undefined,
      undefined,
      (ids) => learnt.push(...ids),
    );
    const [slow, cni] = [x.slowRuntime(), x.slowCni()];
    appendFileSync(join(d.slowRuntimeDir, 'created.log'), `1.0 ${A} cc-x-\n2.0 ${B} cc-y-\n3.0 ${B} \n`);
    appendFileSync(join(d.slowCniDir, 'added.log'), `${B} /run/netns/two cc-y-\n${A} /run/netns/one cc-x-\n`);
    await slow.createdIds();
    await cni.added();
    expect(learnt).to.deep.equal([A, A]);
  });

  it("reads a trial's own lines with a reader made before the trial, and refuses once the trial never claimed the dir", async () => {
    const d = dirs();
    let trial: number | undefined;
    const x = new CheckInjectors(d, ['slow-cni'], 'cc-x-', [], () => trial);
    const cni = x.slowCni();
    const log = join(d.slowCniDir, 'del.log');
    trial = 1;
    await cni.setDelay(0);
    appendFileSync(log, `${A} cc-xt1-\n${B} \n`);
    expect(await cni.deletedIds(), 'trial 1 held the wrapper before its pods').to.deep.equal([A]);
    trial = 2;
    appendFileSync(log, `${B} \n`);
    await cni.deletedIds().then(
      () => expect.fail('a trial that never claimed the dir read its untagged pods as none'),
      (e: Error) => expect(e.message).to.match(/make the injector inside the trial/),
    );
  });

  it('reads no DELs when the wrapper keeps no log', async () => {
    expect(await new CheckInjectors(dirs(), ['slow-cni'], 'cc-x-').slowCni().deletedIds()).to.deep.equal([]);
  });

  it('keeps each check to its own settings and its own log lines in a shared control dir', async () => {
    const d = dirs();
    const config = { slowRuntimeHandler: 'conform-slow', ...d };
    const x = new CheckInjectors(config, ['slow-runtime', 'slow-cni'], 'cc-x-');
    const y = new CheckInjectors(config, ['slow-runtime'], 'cc-y-');
    const [rx, cx, ry] = [x.slowRuntime(), x.slowCni(), y.slowRuntime()];
    await rx.setDelay(4000);
    await cx.setFail(true);
    await ry.setDelay(250);
    const read = (...p: string[]) => readFileSync(join(...p), 'utf8').trim();
    expect(read(d.slowRuntimeDir, 'pods', 'cc-x-', 'delay-ms')).to.equal('4000');
    expect(read(d.slowRuntimeDir, 'pods', 'cc-y-', 'delay-ms')).to.equal('250');
    expect(existsSync(join(d.slowCniDir, 'pods', 'cc-x-', 'fail'))).to.equal(true);
    expect(existsSync(join(d.slowRuntimeDir, 'delay-ms'))).to.equal(false);

    appendFileSync(join(d.slowRuntimeDir, 'created.log'), `1.0 ${A} cc-x-\n2.0 ${B} cc-y-\n3.0 ${B} \n`);
    appendFileSync(join(d.slowCniDir, 'added.log'), `${A} /run/netns/one cc-x-\n${B} /run/netns/two cc-y-\n`);
    expect(await rx.createdIds()).to.deep.equal([A]);
    expect(await ry.createdIds()).to.deep.equal([B]);
    expect([...(await cx.added()).entries()]).to.deep.equal([['/run/netns/one', A]]);

    await x.reset();
    expect(read(d.slowRuntimeDir, 'pods', 'cc-x-', 'delay-ms')).to.equal('0');
    expect(existsSync(join(d.slowCniDir, 'pods', 'cc-x-', 'fail'))).to.equal(false);
    await x.release();
    expect(existsSync(join(d.slowRuntimeDir, 'pods', 'cc-x-'))).to.equal(false);
    expect(read(d.slowRuntimeDir, 'pods', 'cc-y-', 'delay-ms')).to.equal('250');
  });
});
