import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ALL_CHECKS } from '../../suites/index.js';
import { loadBundledDeviations } from '../harness/deviations/deviation-file.js';
import { withCurrentKnownIssues } from '../harness/deviations/deviations.js';
import { IssueReportError, issueReport } from './issue-report.js';
import { packageRoot } from './package-root.test.helper.js';
import { RECORDED, recordedRun } from './recorded-runs.test.helper.js';

const GOLDEN = 'fixtures/results/containerd-2.1.TEAR-16.md';
const needsOf = (id: string) => ({ needs: ALL_CHECKS.find((c) => c.id === id)?.needs ?? [] });

describe('the bug report for one failed check (--issue)', () => {
  const c21 = recordedRun(RECORDED.containerd21);

  it('is pinned for TEAR-16 on containerd 2.1.9 by a golden file, with the known issue as named today', () => {
    const golden = readFileSync(join(packageRoot(), GOLDEN), 'utf8');
    const hint = `regenerate: node bin/cri-conform report ${RECORDED.containerd21} --issue TEAR-16 > ${GOLDEN}`;
    // As `report --issue` does: the bundled deviations name the known issue, not the run's record of it.
    const today = withCurrentKnownIssues(c21, loadBundledDeviations(packageRoot()));
    expect(issueReport(today, 'TEAR-16', needsOf('TEAR-16')), hint).to.equal(golden);
  });

  it('names no path of this machine and gives the run id once', () => {
    for (const r of c21.results.filter((x) => x.verdict === 'failed')) {
      const text = issueReport(c21, r.id, needsOf(r.id));
      expect(text, r.id).not.to.match(/\/tmp\/|\/work\/|\/home\//);
      expect(text.split(c21.properties.runId), r.id).to.have.length(2);
    }
  });

  it('lists the steps of the violating trial of a trial check, and the reproduce command with --focus and --trials', () => {
    const text = issueReport(c21, 'IDEM-05', needsOf('IDEM-05'));
    const trial = /^### Steps of (trial (\d+) of \d+)$/m.exec(text);
    expect(trial, 'a steps heading naming the trial').not.to.equal(null);
    expect(c21.results.find((r) => r.id === 'IDEM-05')?.message).to.contain(`violated in ${trial?.[1]}`);
    expect(text).to.match(/^1\. \+\d+ ms /m);
    expect(text).to.contain("cri-conform run --focus '^IDEM-05\\b' \\\n  --trials 20");
    expect(text).to.contain('https://github.com/containerd/containerd/issues/4604');
  });

  it("keeps the run's flags that change what a check does, quoted, and drops the rest whole", () => {
    const flags =
      '--level=all --restart-cmd=/opt/x/restart.sh /srv/instance --cache-ttl=5s --runtime-handler=odd name --junit=out/j.xml';
    const text = issueReport(
      { ...c21, properties: { ...c21.properties, flags } },
      'TEAR-16',
      needsOf('TEAR-16'),
    );
    const command = /```sh\n([^`]*)```/.exec(text)?.[1] ?? '';
    expect(command).to.contain("--cache-ttl=5s \\\n  --runtime-handler='odd name'");
    expect(command).to.contain("--restart-cmd 'systemctl restart containerd'");
    expect(command).not.to.match(/srv|opt|junit|--level/);
  });

  it('gives a bug no upstream issue tracks its cause and the related issue, not a known upstream issue', () => {
    const knownIssue = {
      reason: 'RemovePodSandbox takes the read lock twice',
      links: ['https://github.com/containerd/containerd/issues/14083'],
      draft: 'docs/upstream/containerd-TEAR-16.md',
    };
    const drafted = {
      ...c21,
      results: c21.results.map((r) => (r.id === 'TEAR-16' ? { ...r, knownIssue } : r)),
    };
    const text = issueReport(drafted, 'TEAR-16', needsOf('TEAR-16'));
    expect(text).to.match(
      /\n## Cause, as read in the source\n\nRemovePodSandbox takes the read lock twice\n\nRelated:\n\n- https:\/\/github\.com\/containerd\/containerd\/issues\/14083\n$/,
    );
    expect(text).not.to.contain('Known upstream issue');
    expect(text).not.to.contain('docs/upstream');
  });

  it("names CRI-O's default socket directory and service, not ones made of its Version name", () => {
    const crio = {
      ...c21,
      properties: { ...c21.properties, runtimeName: 'cri-o', runtimeVersion: '1.36.3' },
    };
    const text = issueReport(crio, 'TEAR-16', needsOf('TEAR-16'));
    expect(text).to.contain('`/var/run/crio` on a default install');
    expect(text).to.contain("--restart-cmd 'systemctl restart crio'");
    expect(text).not.to.match(/\/run\/cri-o|restart cri-o/);
  });

  it('gives a check that judged a shared scenario the steps of the check that ran it', () => {
    const shared = {
      ...c21,
      results: c21.results.map((r) =>
        r.id === 'TEAR-15'
          ? {
              ...r,
              verdict: 'failed' as const,
              message: 'with only plugin 10 failing its hooks: StopPodSandbox UNKNOWN (2) in 298 ms: no',
              observations: { scenario: 'teardown lower-refuses: run by TEAR-05' },
              timeline: [],
            }
          : r,
      ),
    };
    const text = issueReport(shared, 'TEAR-15', needsOf('TEAR-15'));
    expect(text).to.contain("so these are TEAR-05's steps");
    expect(text).to.match(/^1\. \+\d+ ms NRI plugin 10-cri-conform-tear-05/m);
  });

  it('says when the runtime crashed while the check ran', () => {
    const crashed = {
      ...c21,
      runtimeCrashes: [
        { check: 'TEAR-02', beside: ['TEAR-16'], evidence: 'Version got no answer within 5 s' },
      ],
    };
    expect(issueReport(crashed, 'TEAR-16')).to.contain(
      'The runtime crashed while this check ran:\n\n- runtime crash during TEAR-02 (beside TEAR-16): Version got no answer within 5 s',
    );
    expect(issueReport(crashed, 'TEAR-05')).not.to.contain('crashed');
  });

  it("gives the runtime's NRI plugin timeouts as the run learned them, or why it has none", () => {
    const row = (properties: Partial<typeof c21.properties>) =>
      /^\| NRI timeouts \| (.*) \|$/m.exec(
        issueReport({ ...c21, properties: { ...c21.properties, ...properties } }, 'TEAR-16'),
      )?.[1];
    expect(row({ nriTimeouts: { requestMs: 2_000, registrationMs: 5_000 } })).to.equal(
      "plugin request 2.0 s, registration 5.0 s (as the runtime sent them to cri-conform's plugin)",
    );
    expect(row({ nriVersion: 'v0.6.1', nriTimeouts: 'not sent' })).to.equal(
      'not sent by the runtime (its NRI predates v0.7, whose Configure carries them)',
    );
    expect(row({}), 'a results file from before runs recorded them').to.equal('not recorded by this run');
    expect(row({ nriVersion: 'absent' }), 'a run without NRI').to.equal(undefined);
  });

  it('refuses a check that did not fail, or that the run did not have, with a sentence', () => {
    expect(() => issueReport(c21, 'IDEM-01')).to.throw(IssueReportError, 'IDEM-01 passed in this run');
    expect(() => issueReport(c21, 'NOPE-01')).to.throw(IssueReportError, 'NOPE-01 is not in this run');
  });
});
