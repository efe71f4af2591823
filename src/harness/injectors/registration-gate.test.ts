import { getEventListeners } from 'node:events';
import { expect } from 'chai';
import { RegistrationGate } from './registration-gate.js';

/** A piece of work that records when it starts and ends only when told to. */
function held(log: string[], name: string) {
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    work: async () => {
      log.push(`${name} starts`);
      await done;
      log.push(`${name} ends`);
    },
    finish: () => finish(),
  };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('registration gate', () => {
  it("holds a registration until another check's removal is done", async () => {
    const gate = new RegistrationGate();
    const log: string[] = [];
    const removal = held(log, 'A removes');
    const registration = held(log, 'B registers');
    const removing = gate.removal('A', removal.work);
    const registering = gate.registration('B', registration.work);
    await turn();
    expect(log).to.deep.equal(['A removes starts']);
    removal.finish();
    await removing;
    await turn();
    expect(log).to.deep.equal(['A removes starts', 'A removes ends', 'B registers starts']);
    registration.finish();
    await registering;
  });

  it("holds a removal while another check's registration waits or is under way", async () => {
    const gate = new RegistrationGate();
    const log: string[] = [];
    const first = held(log, 'A removes');
    const registration = held(log, 'B registers');
    const second = held(log, 'C removes');
    const calls = [gate.removal('A', first.work), gate.registration('B', registration.work)];
    await turn();
    calls.push(gate.removal('C', second.work));
    await turn();
    first.finish();
    await turn();
    await turn();
    expect(log).to.deep.equal(['A removes starts', 'A removes ends', 'B registers starts']);
    registration.finish();
    await turn();
    await turn();
    expect(log.at(-1)).to.equal('C removes starts');
    second.finish();
    await Promise.all(calls);
  });

  it('never lets a removal and a registration asked for in the same tick both go', async () => {
    const gate = new RegistrationGate();
    const log: string[] = [];
    const removal = held(log, 'A removes');
    const registration = held(log, 'B registers');
    const calls = [gate.removal('A', removal.work), gate.registration('B', registration.work)];
    await turn();
    expect(log).to.have.length(1);
    removal.finish();
    registration.finish();
    await Promise.all(calls);
    expect(log).to.have.length(4);
  });

  it('never holds a check back by its own calls: a registration during its own removal goes at once', async () => {
    const gate = new RegistrationGate();
    const log: string[] = [];
    const removal = held(log, 'A removes');
    const removing = gate.removal('A', removal.work);
    await gate.registration('A', async () => {
      log.push('A registers');
    });
    expect(log).to.deep.equal(['A removes starts', 'A registers']);
    removal.finish();
    await removing;
  });

  it('gives up waiting when the signal aborts', async () => {
    const gate = new RegistrationGate();
    const removal = held([], 'A removes');
    const removing = gate.removal('A', removal.work);
    const abort = new AbortController();
    const registering = gate.registration('B', async () => 'registered', abort.signal);
    abort.abort(new Error('check ended'));
    let error: unknown;
    await registering.catch((e: unknown) => {
      error = e;
    });
    expect(error).to.be.an('error').with.property('message', 'check ended');
    removal.finish();
    await removing;
  });

  it('listens once on a signal however many calls wait on it, and ends them all when it aborts', async () => {
    const gate = new RegistrationGate();
    const registration = held([], 'B registers');
    const registering = gate.registration('B', registration.work);
    const run = new AbortController();
    const removals = Array.from({ length: 12 }, () =>
      gate.removal('A', async () => 'removed', run.signal).catch((e: unknown) => e),
    );
    await turn();
    expect(getEventListeners(run.signal, 'abort')).to.have.length(1);
    run.abort(new Error('run stopped'));
    const ended = await Promise.all(removals);
    expect(ended.map((e) => (e instanceof Error ? e.message : e))).to.deep.equal(
      Array(12).fill('run stopped'),
    );
    registration.finish();
    await registering;
  });

  it('gates only RemovePodSandbox among CRI calls', async () => {
    const gate = new RegistrationGate();
    const registration = held([], 'B registers');
    const registering = gate.registration('B', registration.work);
    const calls = gate.forCalls('A', new AbortController().signal);
    const sent: string[] = [];
    const stop = calls('StopPodSandbox', async () => sent.push('stop'));
    const remove = calls('RemovePodSandbox', async () => sent.push('remove'));
    await stop;
    await turn();
    expect(sent).to.deep.equal(['stop']);
    registration.finish();
    await Promise.all([registering, remove]);
    expect(sent).to.deep.equal(['stop', 'remove']);
  });
});
