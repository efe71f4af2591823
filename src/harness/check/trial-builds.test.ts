import { expect } from 'chai';
import { TrialBuilds } from './trial-builds.js';

describe('TrialBuilds (objects built ahead for the next trial)', () => {
  const recorder = () => {
    const built: number[] = [];
    const notes: string[] = [];
    const builds = new TrialBuilds(
      async (trial) => {
        built.push(trial);
        return `objects of trial ${trial}`;
      },
      3,
      (text) => notes.push(text),
    );
    return { builds, built, notes };
  };

  it('builds a trial at its start when the trial before did not ask for it', async () => {
    const { builds, built } = recorder();
    expect((await builds.setupFor(1)).built).to.equal('objects of trial 1');
    expect((await builds.setupFor(2)).built).to.equal('objects of trial 2');
    expect(built).to.deep.equal([1, 2]);
  });

  it('hands a trial what the trial before built ahead, once, and says so on the timeline', async () => {
    const { builds, built, notes } = recorder();
    const first = await builds.setupFor(1);
    first.buildNext();
    first.buildNext();
    expect(built).to.deep.equal([1, 2]);
    expect((await builds.setupFor(2)).built).to.equal('objects of trial 2');
    expect(built).to.deep.equal([1, 2]);
    expect(notes).to.deep.equal(["building trial 2's objects while trial 1 waits"]);
  });

  it('builds nothing ahead of the last trial', async () => {
    const { builds, built } = recorder();
    (await builds.setupFor(3)).buildNext();
    expect(built).to.deep.equal([3]);
  });

  it('fails the next trial, not the one that asked, when a build ahead fails, and never rejects unread', async () => {
    const builds = new TrialBuilds(
      async (trial) => {
        if (trial === 2) throw new Error('RunPodSandbox: UNAVAILABLE');
        return trial;
      },
      3,
      () => undefined,
    );
    (await builds.setupFor(1)).buildNext();
    await new Promise((resolve) => setImmediate(resolve));
    let failure: unknown;
    await builds.setupFor(2).catch((e: unknown) => {
      failure = e;
    });
    expect(String(failure)).to.match(/UNAVAILABLE/);
    expect((await builds.setupFor(3)).built).to.equal(3);
  });
});
