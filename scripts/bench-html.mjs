#!/usr/bin/env node
// Measures the HTML report of a results.json: its size, the time to render it in node, and in headless
// Chromium the time to load it and to expand every check (every diagram laid out). Writes the numbers to
// reports/bench-html.json. With --screenshot FILE --open ID, also saves a screenshot with that check open.
// Usage: node scripts/bench-html.mjs <results.json> [--screenshot docs/report.png --open TEAR-05]
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { screenshot: { type: 'string' }, open: { type: 'string' } },
});
if (positionals.length !== 1) {
  console.error('usage: node scripts/bench-html.mjs <results.json> [--screenshot FILE --open ID]');
  process.exit(2);
}
const { readResultsFile } = await import(join(root, 'dist/src/report/read-results.js'));
const { renderHtml } = await import(join(root, 'dist/src/report/html/render-html.js'));
const { launchChromium } = await import(join(root, 'dist/src/report/html/chromium.test.helper.js'));

const outcome = await readResultsFile(positionals[0]);
const t0 = performance.now();
const html = renderHtml(outcome);
const renderMs = performance.now() - t0;
const file = join(mkdtempSync(join(tmpdir(), 'cc-')), 'report.html');
writeFileSync(file, html);

const browser = await launchChromium();
const page = await browser.context.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
await page.goto(`file://${file}`, { waitUntil: 'load' });
const loadMs = await page.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd);
const expandAllMs = await page.evaluate(async () => {
  const start = performance.now();
  document.getElementById('expand-all').click();
  document.body.getBoundingClientRect(); // force layout of every opened diagram
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return performance.now() - start;
});
if (values.screenshot) {
  await page.locator('#collapse-all').click();
  const id = values.open ?? '';
  const check = page.locator(`#check-${id}`);
  if (id) {
    await check.locator(':scope > summary').click();
    await check.locator('svg.seq').first().scrollIntoViewIfNeeded();
    await page.evaluate((sel) => document.querySelector(sel)?.scrollIntoView(), `#check-${id}`);
  }
  await page.screenshot({ path: values.screenshot });
}
await browser.close();

const result = {
  source: positionals[0],
  runtime: `${outcome.properties.runtimeName} ${outcome.properties.runtimeVersion}`,
  checks: outcome.results.length,
  timelineEntries: outcome.results.reduce((n, r) => n + r.timeline.length, 0),
  htmlBytes: Buffer.byteLength(html),
  nodeRenderMs: Math.round(renderMs),
  chromiumLoadMs: Math.round(loadMs),
  chromiumExpandAllMs: Math.round(expandAllMs),
  pageErrors: errors,
};
mkdirSync(join(root, 'reports'), { recursive: true });
writeFileSync(join(root, 'reports/bench-html.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
