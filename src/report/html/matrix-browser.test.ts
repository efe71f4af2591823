/**
 * The matrix of recorded runs (containerd 1.7.24, two nodes of 2.1.9 plus a third that disagrees, and a
 * synthetic third runtime of another cri-conform version) opened in headless Chromium: the differing
 * checks are marked, a cell opens that run's check with its sequence diagram, and the filters work.
 * Skips where Chromium is absent, except on CI (CI=true), where it must run.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { ALL_CHECKS } from '../../../suites/index.js';
import { buildMatrix, type Matrix } from '../matrix.js';
import { packageRoot } from '../package-root.test.helper.js';
import { asMatrixRun, onNode, RECORDED, recordedRun, syntheticRun } from '../recorded-runs.test.helper.js';
import { laneLabels, type OpenedPage, openHtml, requireChromium } from './chromium.test.helper.js';
import { renderMatrixHtml } from './render-matrix.js';

const SCREENSHOT = join(packageRoot(), 'reports', 'matrix-browser.png');

describe('the matrix across runs in headless Chromium', function () {
  this.timeout(120_000);
  let matrix: Matrix;
  let opened: OpenedPage | undefined;
  let page: Page;
  let errors: string[];

  before(async function () {
    requireChromium(this);
    const c21 = recordedRun(RECORDED.containerd21);
    matrix = buildMatrix(
      [
        asMatrixRun(recordedRun(RECORDED.containerd17), 'node-17'),
        asMatrixRun(c21, 'node-21a'),
        onNode(c21, 'node-21b'),
        onNode(c21, 'node-21c', { 'TEAR-08': 'passed' }),
        asMatrixRun(syntheticRun()),
      ],
      ALL_CHECKS.map((c) => c.id),
    );
    opened = await openHtml(renderMatrixHtml(matrix), 'matrix.html');
    ({ page, errors } = opened);
  });
  after(async () => {
    await opened?.close();
  });

  const cells = (id: string) =>
    page
      .locator(`tr.row:has(td.id:text-is("${id}")) td.cell`)
      .evaluateAll((els) => els.map((e) => e.textContent));

  it('loads without console errors, one column per runtime version and verdict set, nodes counted', async () => {
    expect(errors).to.deep.equal([]);
    const heads = await page.locator('th.col').evaluateAll((els) => els.map((e) => e.textContent));
    expect(heads).to.deep.equal([
      'Acontainerd 1.7.24~ds1NRI v0.6.1node-172026-11-26cri-conform 0.1.0',
      'Bcontainerd 2.1.9+unknownNRI v0.8.02 nodes2026-11-26cri-conform 0.1.0',
      'Ccontainerd 2.1.9+unknownNRI v0.8.0node-21c2026-11-26cri-conform 0.1.0',
      'Dsynthetic-runtime 0.9.0NRI absentsynthetic-node2026-11-26cri-conform 0.0.9',
    ]);
    expect(await page.locator('tr.row').count()).to.equal(matrix.rows.length);
  });

  it('marks at a glance the checks that fail on one runtime and not the other', async () => {
    expect(await cells('TEAR-16')).to.deep.equal(['passed', 'failed', 'failed', 'not run']);
    expect(await page.locator('tr.row.differs:has(td.id:text-is("TEAR-16"))').count()).to.equal(1);
    expect(await page.locator('tr.row.same:has(td.id:text-is("IDEM-01"))').count()).to.equal(1);
    const differing = await page
      .locator('tr.row.differs td.id')
      .evaluateAll((els) => els.map((e) => e.textContent));
    expect(differing).to.include.members(['IDEM-16', 'HOOK-11', 'TEAR-14', 'TEAR-16']);
  });

  it('marks the cells where runs of one runtime version disagree', async () => {
    const row = page.locator('tr.row.disagrees:has(td.id:text-is("TEAR-08"))');
    expect(await row.count()).to.equal(1);
    expect(await row.locator('td.cell.disagree').count()).to.equal(2);
  });

  it("opens a cell's check in that run, with its sequence diagram", async () => {
    const section = page.locator('#B-TEAR-16');
    expect(await section.getAttribute('open')).to.equal(null);
    await page.locator('tr.row:has(td.id:text-is("TEAR-16")) td.cell').nth(1).locator('a').click();
    expect(await section.getAttribute('open')).to.equal('');
    const svg = section.locator('svg.seq').first();
    await svg.waitFor({ state: 'visible' });
    const lanes = await laneLabels(svg);
    expect(lanes.slice(0, 2)).to.deep.equal(['cri-conform', 'runtime']);
    expect(lanes.some((l) => l.startsWith('plugin 10-'))).to.equal(true);
    expect(await section.locator('pre.message').textContent()).to.contain(
      'RemovePodSandbox did not complete',
    );
    expect(page.url()).to.match(/#B-TEAR-16$/);
    const whose = await page.evaluate(
      "getComputedStyle(document.querySelector('#B-TEAR-16 > summary .id'), '::before').content",
    );
    expect(whose, "the column's letter before the ID").to.equal('"B · "');
  });

  it('filters to the rows where columns differ, and by verdict, without a reload', async () => {
    const differing = matrix.rows.filter((r) => r.state !== 'same').length;
    await page.locator('#only-differing').check();
    expect(await page.locator('#shown').textContent()).to.equal(
      `${differing} of ${matrix.rows.length} checks shown`,
    );
    expect(await page.locator('tr.row:has(td.id:text-is("IDEM-01"))').isVisible()).to.equal(false);
    await page.locator('#only-differing').uncheck();
    for (const v of ['passed', 'observed'])
      await page.locator(`input[data-group=verdict][value=${v}]`).uncheck();
    expect(await page.locator('tr.row:has(td.id:text-is("IDEM-01"))').isVisible()).to.equal(false);
    expect(await page.locator('tr.row:has(td.id:text-is("TEAR-16"))').isVisible()).to.equal(true);
    for (const v of ['passed', 'observed'])
      await page.locator(`input[data-group=verdict][value=${v}]`).check();
    await page.locator('h1').scrollIntoViewIfNeeded();
    mkdirSync(join(packageRoot(), 'reports'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    expect(errors).to.deep.equal([]);
  });
});
