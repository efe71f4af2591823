/**
 * The HTML report of a real run, opened in headless Chromium. The run is cri-conform against the reference
 * runtime with two mutations, so there are real failures (one in a trial check, one across two NRI plugins)
 * without root or containerd. Skips where Chromium is absent, except on CI (CI=true), where it must run.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { startReferenceRuntime } from '../../../fixtures/reference/start.js';
import { ALL_CHECKS } from '../../../suites/index.js';
import { resolveRunConfig } from '../../cli/resolve-config.js';
import type { RunOutcome } from '../../harness/check/result.js';
import { runConformance } from '../../harness/run/run.js';
import { renderJson } from '../json.js';
import { packageRoot } from '../package-root.test.helper.js';
import { laneLabels, type OpenedPage, openHtml, requireChromium } from './chromium.test.helper.js';
import { renderHtml } from './render-html.js';

const CHECKS = ['IDEM-12', 'NAME-01', 'HOOK-01', 'TEAR-05'];
const MUTATIONS = ['cancel-not-cached', 'later-plugins-skipped-on-error'];
const SCREENSHOT = join(packageRoot(), 'reports', 'report-browser.png');

async function realRun(): Promise<RunOutcome> {
  const runtime = await startReferenceRuntime({
    mutations: MUTATIONS,
    nriRequestTimeoutMs: 1_500,
    cacheTtlMs: 4_500,
  });
  const reportDir = mkdtempSync(join(tmpdir(), 'cc-'));
  try {
    const config = resolveRunConfig(
      { level: 'all', trials: '2', nriRequestTimeout: '1500ms', cacheTtl: '5s', reportDir },
      runtime.env,
      {},
    );
    const checks = ALL_CHECKS.filter((c) => CHECKS.includes(c.id));
    const quiet = { onStart() {}, onCheckStart() {}, onCheckEnd() {}, onNote() {} };
    return await runConformance(config, checks, quiet, new AbortController().signal, 'browser-test');
  } finally {
    await runtime.close();
    rmSync(reportDir, { recursive: true, force: true });
  }
}

describe('HTML report in headless Chromium', function () {
  this.timeout(180_000);
  let outcome: RunOutcome;
  let opened: OpenedPage | undefined;
  let page: Page;
  let errors: string[];

  before(async function () {
    requireChromium(this);
    outcome = await realRun();
    opened = await openHtml(renderHtml(outcome), 'report.html');
    ({ page, errors } = opened);
  });
  after(async () => {
    await opened?.close();
  });

  it('comes from a run with real failures, and its results.json matches the published schema', () => {
    const verdicts = Object.fromEntries(outcome.results.map((r) => [r.id, r.verdict]));
    expect(verdicts).to.include({ 'IDEM-12': 'failed', 'TEAR-05': 'failed', 'HOOK-01': 'passed' });
    const schema = JSON.parse(readFileSync(join(packageRoot(), 'src/report/results.schema.json'), 'utf8'));
    const validate = new Ajv({ allowUnionTypes: true }).compile(schema);
    expect(validate(JSON.parse(renderJson(outcome))), JSON.stringify(validate.errors)).to.equal(true);
  });

  it('loads without console errors and shows one row per check', async () => {
    expect(errors).to.deep.equal([]);
    const ids = await page.locator('details.check').evaluateAll((els) => els.map((e) => e.id));
    expect(ids.sort()).to.deep.equal(CHECKS.map((id) => `check-${id}`).sort());
  });

  it("shows a failed check's sequence diagram with its lanes and arrows when expanded", async () => {
    const tear = page.locator('#check-TEAR-05');
    if ((await tear.getAttribute('open')) === null) await tear.locator(':scope > summary').click();
    const svg = tear.locator('svg.seq').first();
    await svg.waitFor({ state: 'visible' });
    const lanes = await laneLabels(svg);
    expect(lanes.slice(0, 2)).to.deep.equal(['cri-conform', 'runtime']);
    expect(lanes.filter((l) => l.startsWith('plugin 10-')).length).to.equal(1);
    expect(lanes.filter((l) => l.startsWith('plugin 20-')).length).to.equal(1);
    expect(await tear.locator('g.call').count()).to.be.greaterThan(0);
    expect(await tear.locator('g.event').count()).to.be.greaterThan(0);
    expect(await tear.locator('g.fault').count()).to.be.greaterThan(0);
  });

  it('marks the violating trial of a trial check', async () => {
    const idem = page.locator('#check-IDEM-12');
    if ((await idem.getAttribute('open')) === null) await idem.locator(':scope > summary').click();
    expect(await idem.locator('.segment.violated').count()).to.be.greaterThan(0);
    expect(await idem.locator('.segment h4').first().textContent()).to.match(/trial|before the trials/);
  });

  it('filters by verdict and level without a reload, and saves a screenshot under reports/', async () => {
    await page.locator('input[data-group=verdict][value=failed]').uncheck();
    expect(await page.locator('#check-TEAR-05').isVisible()).to.equal(false);
    expect(await page.locator('#check-HOOK-01').isVisible()).to.equal(true);
    expect(await page.locator('#shown').textContent()).to.equal('2 of 4 checks shown');
    await page.locator('input[data-group=verdict][value=failed]').check();
    await page.locator('input[data-group=level][value=MUST]').uncheck();
    expect(await page.locator('#shown').textContent()).to.match(/^\d of 4 checks shown$/);
    await page.locator('input[data-group=level][value=MUST]').check();
    mkdirSync(join(packageRoot(), 'reports'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    expect(errors).to.deep.equal([]);
  });
});
