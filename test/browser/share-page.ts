/**
 * The share page in Chromium, for test/browser/terminal.ts: a link made through the API by the
 * signed-in terminal page, opened by a stranger (a fresh browser context: no cookies), the name and
 * size shown, a wrong password refused as such, the right one proved and decrypted in the page and
 * the file saved byte-identical; then a revoked and an expired link each saying why.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { advanceClock } from '#lib/clock.ts';

/** A share link of `fileId` made by the owner's page (its session cookie), through the API. */
const shareOf = (owner: Page, fileId: string, expiresIn: string) =>
  owner.evaluate(
    async ([id, exp]) => {
      const res = await fetch('/api/storage/share', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fileId: id, expiresIn: exp }),
      });
      return (await res.json()) as { shareToken: string; shareUrl: string; expiresAt: string };
    },
    [fileId, expiresIn],
  );

/** Waits for the page's status to reach `state`; answers the problem shown, if any. */
async function reached(page: Page, state: string, timeoutMs = 240_000) {
  await page.waitForSelector(`#status[data-state="${state}"]`, { timeout: timeoutMs, state: 'attached' });
  return { problem: (await page.locator('#problem').textContent()) ?? '', code: (await page.locator('#problem').getAttribute('data-error')) ?? '' };
}

export async function checkSharePage(browser: Browser, owner: Page, fileId: string, content: Buffer, password: string, work: string) {
  const link = await shareOf(owner, fileId, '1h');
  assert.match(link.shareUrl, /\/share\/[A-Za-z0-9_-]{43}$/);
  const stranger = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  try {
    const page = await stranger.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('response', (r) => r.status() === 404 && errors.push(`404 ${r.url()}`));
    await page.goto(link.shareUrl);
    await reached(page, 'ready', 30_000);
    assert.equal(await page.locator('#file-name').textContent(), 'notes.bin');
    assert.match((await page.locator('#file-size').textContent())!, new RegExp(`\\(${content.length} bytes\\)`));
    await page.screenshot({ path: 'docs/share-page.png' });

    await page.fill('#password', 'not the password');
    await page.click('#save');
    const wrong = await reached(page, 'error');
    assert.equal(wrong.code, 'INVALID_PROOF');
    assert.match(wrong.problem, /wrong file password/);

    await page.fill('#password', password);
    const downloading = page.waitForEvent('download', { timeout: 240_000 });
    await page.click('#save');
    await reached(page, 'saved');
    const download = await downloading;
    assert.equal(download.suggestedFilename(), 'notes.bin');
    const saved = join(work, 'shared-notes.bin');
    await download.saveAs(saved);
    assert.deepEqual(readFileSync(saved), content, 'the shared file differs from the uploaded one');
    assert.match((await page.locator('#status').textContent())!, /saved notes\.bin/);
    await page.screenshot({ path: 'docs/share-page-saved.png' });

    // Revoked by its owner: the page says so instead of asking for a password.
    const { shares } = await owner.evaluate(
      async () => (await fetch('/api/storage/shares')).json() as Promise<{ shares: { id: string; expiresAt: string }[] }>,
    );
    const id = shares.find((s) => s.expiresAt === link.expiresAt)!.id;
    await owner.evaluate(async (linkId) => void (await fetch(`/api/storage/shares/${linkId}`, { method: 'DELETE' })), id);
    const revokedErrors = errors.length;
    await page.goto(link.shareUrl);
    const revoked = await reached(page, 'error', 30_000);
    assert.equal(revoked.code, 'SHARE_REVOKED');
    assert.match(revoked.problem, /revoked by the person who shared it/);
    assert.equal(await page.locator('#file').isHidden(), true);
    await page.screenshot({ path: 'docs/share-page-revoked.png' });

    // Expired: past its time (the runtime's clock runs in this process).
    const short = await shareOf(owner, fileId, '60s');
    advanceClock(61_000);
    await page.goto(short.shareUrl);
    const expired = await reached(page, 'error', 30_000);
    assert.equal(expired.code, 'SHARE_EXPIRED');
    assert.match(expired.problem, /this link has expired/);
    // The refused links answer 410 (not 404s of missing pages); nothing else failed.
    assert.deepEqual(errors.slice(0, revokedErrors), []);
    assert.ok(
      errors.slice(revokedErrors).every((e) => !e.startsWith('404')),
      errors.join('\n'),
    );
  } finally {
    await stranger.close();
  }
}
