/**
 * Headless Chromium for the HTML report tests: Debian's chromium driven by playwright-core, which brings
 * no browser of its own. A fresh profile per launch, and no network chatter (sync, updates, QUIC).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { skipBecause } from '../../skip-reason.test.helper.js';

export const CHROMIUM = process.env.CRI_CONFORM_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why the browser tests cannot run here, or undefined when they can. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing: apt-get install chromium`;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'cc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Skips the suite where Chromium is absent, except on CI (CI=true), where the browser test must run. */
export function requireChromium(ctx: Mocha.Context): void {
  const missing = chromiumMissing();
  if (!missing) return;
  if (process.env.CI === 'true') throw new Error(`${missing} (CI=true: the browser test must run)`);
  skipBecause(ctx, missing);
}

export interface OpenedPage {
  page: Page;
  /** Console errors and uncaught exceptions of the page, as they happen. */
  errors: string[];
  close(): Promise<void>;
}

/** Writes `html` to a temporary file and opens it in a fresh headless Chromium. */
export async function openHtml(html: string, name: string): Promise<OpenedPage> {
  const dir = mkdtempSync(join(tmpdir(), 'cc-'));
  const file = join(dir, name);
  writeFileSync(file, html);
  const browser = await launchChromium();
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`file://${file}`, { waitUntil: 'load' });
  return {
    page,
    errors,
    close: async () => {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The lane labels of a sequence diagram: each label's own text, without the full name in its <title>. */
export function laneLabels(svg: Locator): Promise<string[]> {
  return svg.locator('.lane-label').evaluateAll((els) => els.map((e) => e.firstChild?.textContent ?? ''));
}
