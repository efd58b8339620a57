/**
 * The browser terminal in a real headless Chromium (Debian's, driven by playwright-core) against
 * the local runtime: register, log in, upload a file (encrypted and proved in the page), see it
 * listed, download it and compare the bytes, run a toolkit command; then sign in with OAuth by
 * redirect through the runtime's local OpenID provider (oauth2-mock-server on loopback), and see a
 * failed callback reported. Saves screenshots under docs/.
 * `npm run test:browser`; exits non-zero on the first failure.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { startTestRuntime } from '../support/runtime.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// This machine's closed network: no background connections, no first-run work.
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The terminal's text (xterm's accessibility-free DOM renderer keeps one row per div). */
const screen = (page: Page) => page.evaluate(() => (document.querySelector('.xterm-rows') as HTMLElement).innerText);

/** Types a line and waits until the command finished (the page marks each end). */
async function type(page: Page, line: string, timeoutMs = 120_000) {
  const before = await page.evaluate(() => document.body.dataset.idle ?? '');
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  await page.waitForFunction((b) => (document.body.dataset.idle ?? '') !== b, before, { timeout: timeoutMs });
}
/** Answers a secret prompt, then waits for the command to end. */
async function typeWithSecret(page: Page, line: string, prompt: string, secret: string, timeoutMs = 180_000) {
  const before = await page.evaluate(() => document.body.dataset.idle ?? '');
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  await page.waitForFunction((p) => (document.querySelector('.xterm-rows') as HTMLElement).innerText.trimEnd().endsWith(p.trimEnd()), prompt, { timeout: 30_000 });
  await page.keyboard.type(secret);
  await page.keyboard.press('Enter');
  await page.waitForFunction((b) => (document.body.dataset.idle ?? '') !== b, before, { timeout: timeoutMs });
}

/** Waits (up to 10 s, rendering is asynchronous) for the screen to match, then asserts it. */
async function expectScreen(page: Page, re: RegExp) {
  await page.waitForFunction(([src, flags]) => new RegExp(src!, flags).test((document.querySelector('.xterm-rows') as HTMLElement).innerText), [re.source, re.flags], { timeout: 10_000 }).catch(() => {});
  const text = await screen(page);
  assert.match(text, re, text);
  return text;
}

const runtime = await startTestRuntime();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
const work = mkdtempSync(join(tmpdir(), 'shroud-browser-'));
let failed = false;
let page: Page | undefined;
try {
  page = await browser.newPage({ viewport: { width: 1280, height: 680 }, acceptDownloads: true });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(runtime.url + '/');
  await page.waitForSelector('.xterm-rows');
  await page.waitForFunction(() => (document.querySelector('.xterm-rows') as HTMLElement).innerText.includes('shroud$'));
  await page.click('#terminal');

  await type(page, 'help');
  await expectScreen(page, /toolkit/);
  await page.screenshot({ path: 'docs/terminal-help.png' });

  const user = `web_${randomBytes(3).toString('hex')}`;
  const password = 'correct horse battery staple';
  await typeWithSecret(page, `register ${user}`, 'new password: ', password);
  await expectScreen(page, new RegExp(`registered\\s+${user}`));
  await type(page, `login ${user} -p "${password}"`);
  await expectScreen(page, new RegExp(`signed in as\\s+${user}`));
  await type(page, 'clear');
  await type(page, 'whoami');
  await expectScreen(page, new RegExp(`username\\s+${user}`));

  // A file picked (as a drop or the picker does), encrypted and proved in the page, uploaded.
  const content = randomBytes(40_000);
  await page.setInputFiles('#file-input', { name: 'notes.bin', mimeType: 'application/octet-stream', buffer: content });
  await page.waitForFunction(() => (document.querySelector('.xterm-rows') as HTMLElement).innerText.includes('ready: notes.bin'));
  await type(page, 'upload notes.bin -p "file secret"', 240_000);
  await expectScreen(page, /uploaded\s+notes\.bin/);
  await type(page, 'files');
  const listing = await expectScreen(page, /notes\.bin/);
  const id = /([0-9a-f]{8}-[0-9a-f-]{27})\s+notes\.bin/.exec(listing)?.[1];
  assert.ok(id, listing);
  await page.screenshot({ path: 'docs/terminal-files.png' });

  const downloading = page.waitForEvent('download', { timeout: 240_000 });
  downloading.catch(() => {});
  await type(page, `download ${id} -p "file secret"`, 240_000);
  await expectScreen(page, /saved\s+notes\.bin/);
  const saved = join(work, 'notes.bin');
  await (await downloading).saveAs(saved);
  assert.deepEqual(readFileSync(saved), content, 'downloaded bytes differ');

  await type(page, 'clear');
  await type(page, 'toolkit field add 2 3');
  await expectScreen(page, /\b5\b/);
  await type(page, 'toolkit hash poseidon 1 2');
  await expectScreen(page, /hash\s+0x[0-9a-f]{64}/);
  await page.screenshot({ path: 'docs/terminal-toolkit.png' });

  await type(page, 'logout');
  await type(page, 'whoami');
  await expectScreen(page, /UNAUTHENTICATED|not signed in/);

  // OAuth by redirect: the page leaves for /api/zkauth/login, the local provider signs `ada` in
  // at once, the callback sets the session cookie and sends the page back to the terminal.
  await type(page, 'clear');
  await type(page, 'login');
  await expectScreen(page, /login --provider google/);
  await type(page, 'help login');
  await expectScreen(page, /--provider <id>\s+sign in with an OAuth provider/);
  const returned = page.waitForURL((u) => u.searchParams.get('login') === 'google', { waitUntil: 'commit', timeout: 30_000 });
  await page.keyboard.type('login --provider google ada');
  await page.keyboard.press('Enter');
  await returned;
  await page.waitForSelector('.xterm-rows');
  await expectScreen(page, /signed in with\s+google[\s\S]*name\s+Ada[\s\S]*email\s+ada@example\.com[\s\S]*id\s+[0-9a-f-]{36}/);
  await page.waitForFunction(() => (document.querySelector('.xterm-rows') as HTMLElement).innerText.trimEnd().endsWith('shroud$'));
  assert.equal(new URL(page.url()).search, '', 'the return marks stay in the address bar');
  await page.click('#terminal');
  await type(page, 'whoami');
  await expectScreen(page, /whoami[\s\S]*id\s+[0-9a-f-]{36}/);
  await page.screenshot({ path: 'docs/terminal-oauth.png' });
  // A callback this browser did not start (no state cookie) comes back with ?error=, shown here.
  await page.goto(`${runtime.url}/api/zkauth/callback/google?state=forged&code=forged`);
  await page.waitForSelector('.xterm-rows');
  await expectScreen(page, /error AUTH_FAILED: the sign-in did not complete/);
  await page.click('#terminal');
  await type(page, 'whoami');
  await expectScreen(page, /id\s+[0-9a-f-]{36}/); // the refused callback ended nothing
  assert.deepEqual(errors, []);
  console.log('browser terminal: ok (register, login, whoami, upload, files, download, toolkit, logout, OAuth login by redirect, OAuth error)');
} catch (e) {
  failed = true;
  console.error(e);
  if (page) console.error(`the screen:\n${await screen(page).catch(() => '')}`);
} finally {
  await browser.close();
  await runtime.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
