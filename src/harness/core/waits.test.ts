import { expect } from 'chai';
import { WaitTimeout } from './errors.js';
import { holdsFor, notYet, poll } from './waits.js';

describe('waits', () => {
  it('poll returns the first truthy value', async () => {
    let n = 0;
    expect(
      await poll(async () => (++n >= 3 ? n : undefined), {
        withinMs: 1_000,
        what: 'three looks',
        everyMs: 1,
      }),
    ).to.equal(3);
  });

  it('poll names what it waited for when the deadline passes', async () => {
    const err = await poll(async () => false, {
      withinMs: 30,
      what: 'the pod to be READY',
      everyMs: 5,
    }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(WaitTimeout);
    expect((err as Error).message).to.match(/waiting for the pod to be READY/);
  });

  it('poll says what the last look saw when the deadline passes (every wait that times out does)', async () => {
    let n = 0;
    const saw = await poll(async () => notYet(`state ${++n > 1 ? 'EXITED' : 'CREATED'}`), {
      withinMs: 30,
      what: 'the container to run',
      everyMs: 5,
    }).catch((e: unknown) => (e as Error).message);
    expect(saw).to.match(
      /^timed out after 30 ms waiting for the container to run \(last seen: state EXITED\)$/,
    );
    const failed = await poll(
      async () => {
        throw new Error('exec: no such container');
      },
      { withinMs: 20, what: 'a marker', everyMs: 5 },
    ).catch((e: unknown) => (e as Error).message);
    expect(failed).to.match(/\(last probe error: exec: no such container\)$/);
    const plain = await poll(async () => false, { withinMs: 20, what: 'a flag', everyMs: 5 }).catch(
      (e: unknown) => (e as Error).message,
    );
    expect(plain).to.match(/\(last look: false\)$/);
  });

  it('holdsFor fails at the first look where the condition breaks', async () => {
    let n = 0;
    const err = await holdsFor(() => ++n < 3, 1_000, 'the sandbox stays hidden', undefined, 1).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).to.match(/expected the sandbox stays hidden to hold/);
  });

  it('holdsFor passes when the condition holds for the window', async () => {
    await holdsFor(() => true, 20, 'always', undefined, 5);
  });
});
