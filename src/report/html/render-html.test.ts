import { expect } from 'chai';
import { diffRuns } from '../diff.js';
import { result, sampleOutcome, TIMELINE } from '../sample-outcome.test.helper.js';
import { renderHtml } from './render-html.js';

describe('renderHtml', () => {
  const html = renderHtml(sampleOutcome());

  it('is one self-contained file: inline style and script, nothing fetched', () => {
    expect(html).to.match(/^<!DOCTYPE html>/);
    expect(html).to.contain('<style>').and.to.contain('<script>');
    expect(html).not.to.match(/<(?:script|link|img)[^>]+(?:src|href)=/);
  });

  it('heads the page with the runtime, versions and the exit verdict', () => {
    expect(html).to.contain('containerd 1.7.24').and.to.contain('0.6.1');
    expect(html).to.contain('exit 1: a check failed');
  });

  it('heads the page with the CPUs and the hook lane when the run recorded them', () => {
    const outcome = {
      ...sampleOutcome(),
      cpu: { cores: 2, busySeconds: 40.2, busyPct: 56, floorMs: 20_100, toolSeconds: 6.3 },
      hookLane: {
        turns: 60,
        takenMs: 9_341,
        spanMs: 9_500,
        byCheck: [{ id: 'TEAR-08', turns: 60, takenMs: 9_341 }],
      },
    };
    const page = renderHtml(outcome);
    expect(page).to.contain('this work takes at least 20.1 s here (CPU floor)');
    expect(page).to.contain(
      'taken 9.3 s of the 9.5 s from its first turn to its last (TEAR-08 9.3 s in 60 turns)',
    );
    expect(html).not.to.contain('first turn to its last');
  });

  it('puts failures and errors first and opens only the first failure', () => {
    const ids = [...html.matchAll(/<details class="check" id="check-([A-Z]+-\d+)"/g)].map((m) => m[1]);
    expect(ids.slice(0, 2)).to.deep.equal(['IDEM-02', 'NAME-01']);
    expect(ids).to.have.length(6);
    expect(html.match(/<details class="check"[^>]* open>/g)).to.have.length(1);
    expect(html).to.match(/id="check-IDEM-02"[^>]* open>/);
  });

  it('offers filters for every suite, verdict and level present', () => {
    for (const v of ['idempotency', 'names', 'hooks', 'failed', 'skipped', 'MUST', 'OBSERVE'])
      expect(html).to.contain(`value="${v}" checked`);
  });

  it('shows a race check’s trials beside the floors its required waits allow', () => {
    expect(html).to.contain(
      'Trials:</b> 0 of 5 trials violated the contract, 4 at once; floor 2.4 s side by side, 6.0 s serial',
    );
  });

  it('shows a known issue with its reason and links', () => {
    const outcome = sampleOutcome();
    outcome.results = [
      result({
        id: 'TEAR-05',
        verdict: 'failed',
        timeline: TIMELINE,
        knownIssue: {
          reason: 'later plugins skipped',
          links: ['https://github.com/containerd/containerd/issues/2'],
        },
      }),
    ];
    const out = renderHtml(outcome);
    expect(out).to.contain('Known issue:</b> later plugins skipped');
    expect(out).to.contain('href="https://github.com/containerd/containerd/issues/2"');
  });

  it('adds the diff section when given a baseline comparison', () => {
    const old = sampleOutcome();
    old.results = old.results.map((r) => (r.id === 'IDEM-02' ? { ...r, verdict: 'passed' } : r));
    const out = renderHtml(sampleOutcome(), { diff: diffRuns(old, sampleOutcome()) });
    expect(out).to.contain('Compared with the baseline: 1 regression(s)');
    expect(out).to.contain('<td class="regression">regression</td><td><a href="#check-IDEM-02">');
  });
});
