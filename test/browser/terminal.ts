/**
 * The browser terminal in a real headless Chromium (Debian's, driven by playwright-core) against
 * the local runtime: register, log in, upload a file (encrypted and proved in the page), see it
 * listed, download it and compare the bytes, run a toolkit command; then sign in with OAuth by
 * redirect through the runtime's local OpenID provider (oauth2-mock-server on loopback), and see a
 * failed callback reported. The terminal fills the window at 1280×900, 1920×1080 and 800×600 and
 * follows each resize; help breaks at spaces; the assistant's answer shows before its stream ends;
 * a share link opens in another browser context (test/browser/share-page.ts) and with `receive`
 * in the terminal; the icon is served.
 * Saves screenshots under docs/.
 * `npm run test:browser`; exits non-zero on the first failure.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { commands } from '#lib/cli/commands.ts';
import { helpText } from '#lib/web/shell.ts';
import { startTestRuntime } from '../support/runtime.ts';
import { checkSharePage } from './share-page.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// This machine's closed network: no background connections, no first-run work.
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The terminal's text (xterm's accessibility-free DOM renderer keeps one row per div). */
const screen = (page: Page) => page.evaluate(() => (document.querySelector('.xterm-rows') as HTMLElement).innerText);

/** Types a line and waits until the command finished (the page marks each end). */
async function type(page: Page, line: string, timeoutMs = 120_000) {
  const before = await page.evaluate(() => document.body.dataset.idle ?? '');
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  await page.waitForFunction((b) => (document.body.dataset.idle ?? '') !== b, before, { timeout: timeoutMs });
}
/** Answers each secret prompt in turn, then waits for the command to end. */
async function typeWithSecrets(page: Page, line: string, answers: [prompt: string, secret: string][], timeoutMs = 180_000) {
  const before = await page.evaluate(() => document.body.dataset.idle ?? '');
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  for (const [prompt, secret] of answers) {
    await page.waitForFunction((p) => (document.querySelector('.xterm-rows') as HTMLElement).innerText.trimEnd().endsWith(p.trimEnd()), prompt, {
      timeout: 30_000,
    });
    await page.keyboard.type(secret);
    await page.keyboard.press('Enter');
  }
  await page.waitForFunction((b) => (document.body.dataset.idle ?? '') !== b, before, { timeout: timeoutMs });
}

/** Waits (up to 10 s, rendering is asynchronous) for the screen to match, then asserts it. */
async function expectScreen(page: Page, re: RegExp) {
  await page
    .waitForFunction(([src, flags]) => new RegExp(src!, flags).test((document.querySelector('.xterm-rows') as HTMLElement).innerText), [re.source, re.flags], {
      timeout: 10_000,
    })
    .catch(() => {});
  const text = await screen(page);
  assert.match(text, re, text);
  return text;
}

/**
 * Resizes the window and waits until the terminal follows: its columns and rows are what fits the
 * box (8 px margins, the 14 px scrollbar) in the measured cell, and xterm draws that many rows.
 */
async function fitted(page: Page, width: number, height: number) {
  await page.setViewportSize({ width, height });
  await page.waitForFunction(
    ([w, h]) => {
      const d = document.body.dataset;
      const box = document.getElementById('terminal')!;
      const [cw, ch] = (d.cell ?? '0x0').split('x').map(Number);
      return (
        box.clientWidth === w! - 16 &&
        box.clientHeight === h! - 16 &&
        Number(d.cols) === Math.floor((box.clientWidth - 14) / cw!) &&
        Number(d.rows) === Math.floor(box.clientHeight / ch!) &&
        document.querySelector('.xterm-rows')!.children.length === Number(d.rows)
      );
    },
    [width, height],
    { timeout: 10_000 },
  );
  const size = await page.evaluate(() => ({
    cols: Number(document.body.dataset.cols),
    rows: Number(document.body.dataset.rows),
    cell: document.body.dataset.cell,
  }));
  console.log(`  ${width}×${height}: ${size.cols}×${size.rows} (cell ${size.cell} px)`);
  return size;
}

/**
 * Relays the assistant's event stream to the page one frame at a time and holds its last frame
 * (`done`) until `window.releaseChat()`: what the page shows meanwhile is what it streamed.
 */
function holdChatStream() {
  const real = window.fetch.bind(window);
  let release!: () => void;
  const released = new Promise<void>((ok) => (release = ok));
  (window as unknown as { releaseChat: () => void }).releaseChat = release;
  window.fetch = async (input, init) => {
    const res = await real(input, init);
    if (!String(input instanceof Request ? input.url : input).endsWith('/api/ai/chat') || !res.body) return res;
    const frames = (await res.text()).split(/\n\n/).filter(Boolean);
    const enc = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(c) {
        for (const f of frames) {
          if (f.includes('event: done')) await released;
          c.enqueue(enc.encode(`${f}\n\n`));
          await new Promise((r) => setTimeout(r, 30));
        }
        c.close();
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  };
}

const runtime = await startTestRuntime();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
const work = mkdtempSync(join(tmpdir(), 'shroud-browser-'));
let failed = false;
let page: Page | undefined;
try {
  page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('response', (r) => r.status() === 404 && errors.push(`404 ${r.url()}`));
  await page.addInitScript(holdChatStream);
  await page.goto(runtime.url + '/');
  await page.waitForSelector('.xterm-rows');
  await page.waitForFunction(() => (document.querySelector('.xterm-rows') as HTMLElement).innerText.includes('shroud$'));
  await page.click('#terminal');

  // The terminal fills the window at each size and follows every resize.
  const at1280 = await fitted(page, 1280, 900);
  assert.ok(at1280.cols > 80 && at1280.rows > 24, JSON.stringify(at1280));
  const at1920 = await fitted(page, 1920, 1080);
  assert.ok(at1920.cols > at1280.cols && at1920.rows > at1280.rows, JSON.stringify(at1920));
  const at800 = await fitted(page, 800, 600);
  assert.ok(at800.cols < at1280.cols && at800.rows < at1280.rows, JSON.stringify(at800));

  // At 800×600, help breaks its lines at spaces: the rows joined again are help's own words.
  await type(page, 'help');
  await expectScreen(page, /toolkit/);
  const squash = (t: string) => t.replace(/\s+/g, ' ').trim();
  const rowsShown = (await screen(page)).split('\n').filter((l) => l.trim() && !l.includes('shroud$'));
  assert.ok(
    rowsShown.every((l) => l.trimEnd().length <= at800.cols),
    rowsShown.join('\n'),
  );
  assert.ok(squash(helpText(commands)).includes(squash(rowsShown.slice(-12).join(' '))), `help broken inside a word:\n${rowsShown.join('\n')}`);
  await page.screenshot({ path: 'docs/terminal-help-800x600.png' });
  await fitted(page, 1280, 900);
  await type(page, 'clear');
  await type(page, 'help');
  await expectScreen(page, /toolkit/);
  await page.screenshot({ path: 'docs/terminal-help.png' });

  const user = `web_${randomBytes(3).toString('hex')}`;
  const password = 'correct horse battery staple';
  // A person at the page: the new password is asked for twice.
  await typeWithSecrets(page, `register ${user}`, [
    ['new account password: ', password],
    ['new account password again: ', password],
  ]);
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
  assert.match(listing, /notes\.bin\s+39\.1 KiB\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/); // the date on one line
  await page.screenshot({ path: 'docs/terminal-files.png' });

  const downloading = page.waitForEvent('download', { timeout: 240_000 });
  downloading.catch(() => {});
  await type(page, `download ${id} -p "file secret"`, 240_000);
  await expectScreen(page, /saved\s+notes\.bin/);
  const saved = join(work, 'notes.bin');
  await (await downloading).saveAs(saved);
  assert.deepEqual(readFileSync(saved), content, 'downloaded bytes differ');

  await checkSharePage(browser, page, id, content, 'file secret', work);
  console.log('  share page: opened, wrong password refused, saved byte-identical; revoked and expired links say why');

  // The terminal receives a link too (`receive`, as `shroud receive` does): the file saved byte-identical.
  await type(page, 'clear');
  await type(page, `share ${id}`);
  const link = /link\s+(\S+\/share\/\S+)/.exec(await expectScreen(page, /link\s+\S+\/share\//))?.[1];
  assert.ok(link, 'no share link on the screen');
  const receiving = page.waitForEvent('download', { timeout: 240_000 });
  receiving.catch(() => {});
  await type(page, `receive ${link} received.bin -p "file secret"`, 240_000);
  await expectScreen(page, /saved\s+received\.bin/);
  const received = join(work, 'received.bin');
  await (await receiving).saveAs(received);
  assert.deepEqual(readFileSync(received), content, 'received bytes differ');
  console.log('  receive in the terminal: the link opened, saved byte-identical');

  // The assistant's answer is on the screen while its stream is still open (its last frame held).
  await type(page, 'clear');
  const asked = await page.evaluate(() => document.body.dataset.idle ?? '');
  await page.keyboard.type('ask how do I share a file?');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /ask how do I share a file\?\n\S/.test((document.querySelector('.xterm-rows') as HTMLElement).innerText), undefined, {
    timeout: 60_000,
  });
  const midStream = await screen(page);
  assert.equal(await page.evaluate(() => document.body.dataset.idle ?? ''), asked, 'the command ended before its stream');
  assert.doesNotMatch(midStream, /conversation [0-9a-f-]{36}/, midStream);
  await page.evaluate(() => (window as unknown as { releaseChat: () => void }).releaseChat());
  await page.waitForFunction((b) => (document.body.dataset.idle ?? '') !== b, asked, { timeout: 60_000 });
  await expectScreen(page, /conversation [0-9a-f-]{36}/);
  await page.screenshot({ path: 'docs/terminal-ask.png' });

  const icon = await page.request.get(`${runtime.url}/favicon.ico`);
  assert.equal(icon.status(), 200);
  assert.equal(icon.headers()['content-type'], 'image/x-icon');
  assert.equal((await icon.body()).readUInt16LE(2), 1); // an ICO

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
  console.log(
    'browser terminal: ok (fits 1280×900, 1920×1080, 800×600 and follows resizes; help breaks at spaces; register, login, whoami, upload, files, download, share page, receive, ask streaming, favicon, toolkit, logout, OAuth login by redirect, OAuth error)',
  );
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
