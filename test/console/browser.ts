import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { CONSOLE_ROOT } from '../../src/console/routes.js';
import { TEST_BASE_URL } from '../helpers/service.js';
import { codeIn, type SmtpSink } from '../helpers/smtp.js';

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

/** The server file the console bundles (the audit log's formats, shared with the browser). */
const SHARED_WITH_CONSOLE = 'src/audit/log-format.ts';
const isBuilt = () => {
  const index = join(CONSOLE_ROOT, 'index.html');
  return existsSync(index) && statSync(index).mtimeMs >= Math.max(newestChange('console'), statSync(SHARED_WITH_CONSOLE).mtimeMs);
};
/** A lock beside the build, so that test files started together build it once (a build empties the folder first). */
const BUILD_LOCK = join(CONSOLE_ROOT, '..', '.console-build.lock');
const STALE_LOCK_MS = 5 * 60_000;
const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Builds the console when dist/ lacks it or console/ (or the file it shares) changed since (tests run from source with tsx). */
export function ensureConsoleBuilt(): void {
  if (isBuilt()) return;
  mkdirSync(join(CONSOLE_ROOT, '..'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const held = statSync(BUILD_LOCK, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(BUILD_LOCK, { recursive: true, force: true });
      else sleep(200);
    }
  }
  try {
    if (!isBuilt()) execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'console/vite.config.ts'], { stdio: 'inherit' });
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

/**
 * Chromium, headless. `service`: the test service, whose BASE_URL host (http://latchkey.test) the
 * browser then resolves to it, so URLs the service makes from BASE_URL (signed upload URLs, logos
 * under CDN_URL, emailed links) work in the browser as they would in a deployment.
 */
export function launchChromium(options: { service?: { url: string } } = {}): Promise<Browser> {
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];
  if (options.service) args.push(`--host-resolver-rules=MAP ${new URL(TEST_BASE_URL).host} ${new URL(options.service.url).host}`);
  return chromium.launch({ executablePath: CHROMIUM, args });
}

/** Chromium for a test file's describe block, started in `before` and closed in `after` (with `service`: as launchChromium). */
export function useChromium(service?: () => { url: string }): { readonly browser: Browser } {
  let browser: Browser | undefined;
  before(async () => {
    browser = await launchChromium(service ? { service: service() } : {});
  });
  after(async () => {
    await browser?.close();
  });
  return {
    get browser() {
      if (!browser) throw new Error('Chromium is started in before()');
      return browser;
    },
  };
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

/** Saves the page at phone and desktop widths as NAME-phone.png and NAME-desktop.png; the desktop one shows the top, or `at`. */
export async function shoot(page: Page, name: string, at?: Locator): Promise<void> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(SHOTS_DIR, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
  if (at) await at.evaluate('(el) => el.scrollIntoView({ block: "center" })');
  else await page.evaluate('window.scrollTo(0, 0)');
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

/** axe-core's browser build, read once (a pinned devDependency: docs/decisions.md). */
let axeSource: string | undefined;

/**
 * Runs axe-core (WCAG 2 A and AA rules) on the page as it is and fails on any serious or critical
 * violation, naming the rule and the elements. Evaluated through the DevTools protocol, which the
 * console's CSP does not govern, so the page is tested with its real policy in force.
 */
export async function assertNoSeriousAxeViolations(page: Page): Promise<void> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] })
    .then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ rule: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.html.slice(0, 140)) })))`)) as unknown[];
  assert.deepEqual(violations, [], `serious accessibility findings on ${page.url()}`);
}

export const PASSWORD = 'correct horse battery staple';

const emailsTo = (sink: SmtpSink, to: string) => sink.messages.filter((m) => m.to.includes(to));

/** A console link from an email (written with BASE_URL), as a path to open on the test service. */
export function consoleLinkIn(text: string, page: string): string {
  const link = new RegExp(`(/console/${page}\\?[^\\s"<>]+)`).exec(text);
  assert.ok(link, `no /console/${page} link in: ${text}`);
  return link[1]!.replace(/&amp;/g, '&');
}

/** Registers through the console and follows the emailed verification link. */
export async function registerAndVerify(tab: Tab, base: string, sink: SmtpSink, email: string): Promise<void> {
  const { page } = tab;
  await page.goto(`${base}/console/register`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Locks' }).waitFor();
  const message = await sink.waitFor((m) => m.to.includes(email) && /verify\?code=/.test(m.text));
  await page.goto(`${base}${consoleLinkIn(message.text, 'verify')}`);
  await page.getByText('Your email address is verified.').waitFor();
}

/** Certifies this browser's key, answering the secondary check (423) with the emailed code when the service asks. */
export async function certifyBrowser(tab: Tab, base: string, sink: SmtpSink | null, email: string, shots?: string): Promise<void> {
  const { page } = tab;
  await page.goto(`${base}/console/`);
  await page.getByRole('button', { name: 'Certify this browser' }).click();
  if (sink) {
    const before = emailsTo(sink, email).length;
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByText('A code is on its way').waitFor();
    const message = await sink.waitFor((m) => m.to.includes(email) && emailsTo(sink, email).indexOf(m) >= before && /\b\d{6}\b/.test(m.text));
    await page.getByLabel('Code', { exact: true }).fill(codeIn(message.text));
    if (shots) await shoot(page, shots);
    await page.getByRole('button', { name: 'Check code' }).click();
  }
  await page.getByText(/Certified until/).waitFor();
}

/** Signs in through the console's form and waits for the page it leads to. */
export async function signInAs(tab: Tab, base: string, email: string, password: string, landing = 'Locks'): Promise<void> {
  await tab.page.goto(`${base}/console/signin`);
  await tab.page.getByLabel('Email').fill(email);
  await tab.page.getByLabel('Password').fill(password);
  await tab.page.getByRole('button', { name: 'Sign in' }).click();
  await tab.page.getByRole('heading', { name: landing, exact: true }).waitFor();
}
