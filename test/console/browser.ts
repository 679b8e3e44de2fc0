import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CONSOLE_ROOT } from '../../src/console/routes.js';

/**
 * Headless Chromium (Debian's package) driving the real console, plus the checks every page must
 * pass: no console errors, every control labelled, screenshots at phone and desktop widths.
 */

export const CHROMIUM = '/usr/bin/chromium';
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 860 };

/** The newest modification time of the files under `dir`, in ms. */
function newestChange(dir: string): number {
  return Math.max(0, ...readdirSync(dir).map((name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    return stat.isDirectory() ? newestChange(path) : stat.mtimeMs;
  }));
}

/** Builds the console when dist/ lacks it or console/ changed since (tests run from source with tsx). */
export function ensureConsoleBuilt(): void {
  const index = join(CONSOLE_ROOT, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestChange('console')) return;
  execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'console/vite.config.ts'], { stdio: 'inherit' });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

/** Where screenshots go: LATCHKEY_CONSOLE_SHOTS (e.g. docs/console) or a temporary folder. */
export const SHOTS_DIR = process.env.LATCHKEY_CONSOLE_SHOTS ?? join(tmpdir(), 'latchkey-console-shots');

export interface Tab {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught exceptions seen so far. */
  errors: string[];
}

/** A new browser context (its own storage: a second person) with one page whose errors are collected. */
export async function openTab(browser: Browser, expectedStatuses: number[] = []): Promise<Tab> {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // Chromium reports every non-2xx fetch as a console error; the ones the flow expects (e.g. 423, the secondary check) are not faults.
    const status = /status of (\d{3})/.exec(message.text());
    if (status && expectedStatuses.includes(Number(status[1]))) return;
    errors.push(message.text());
  });
  page.on('pageerror', (err) => errors.push(`uncaught: ${err.message}`));
  page.setDefaultTimeout(15_000);
  return { page, context, errors };
}

/** Saves the page at phone and desktop widths as NAME-phone.png and NAME-desktop.png. */
export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(SHOTS_DIR, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: join(SHOTS_DIR, `${name}-desktop.png`), fullPage: false });
}

/** Every input, select, textarea and button on the page has an accessible name (a label, aria-label or text). */
export async function assertAllLabelled(page: Page): Promise<void> {
  // A string, evaluated in the page: this project's Node typings have no DOM.
  const unlabelled = (await page.evaluate(`(() => {
    const missing = [];
    for (const el of document.querySelectorAll('input, select, textarea, button')) {
      if (el.type === 'hidden') continue;
      const labelled = (el.labels?.length ?? 0) > 0 || !!el.getAttribute('aria-label') || !!el.getAttribute('aria-labelledby');
      const text = el.tagName === 'BUTTON' && (el.textContent ?? '').trim() !== '';
      if (!labelled && !text) missing.push(el.outerHTML.slice(0, 120));
    }
    return missing;
  })()`)) as string[];
  assert.deepEqual(unlabelled, [], `controls without an accessible name on ${page.url()}`);
}

/** The first code (6 digits) in a text. */
export function codeIn(text: string): string {
  const match = /\b(\d{6})\b/.exec(text);
  assert.ok(match, `no code in: ${text}`);
  return match[1]!;
}
