/**
 * `shroud receive`, the real binary (lib/cli/shroud.mjs) against the local runtime: a file shared
 * by one account is received by someone with no account and no session — by its link (opened at
 * the link's own origin, whatever API the recipient's config names) and by its bare token — the
 * bytes identical; a wrong file password, a revoked and an expired link each say why, with their
 * exit codes; and once in a real terminal (tmux), where the password prompt names the file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, resetClock } from '#lib/clock.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { BIN, shroudRunner } from './binary.ts';

let rt: TestRuntime;
const home = mkdtempSync(join(tmpdir(), 'shroud-receive-'));
const bytes = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 7919 + 13) % 253));
let fileId = '';

beforeAll(async () => {
  rt = await startTestRuntime();
}, 120_000);
afterAll(async () => {
  resetClock();
  await rt?.stop();
  rmSync(home, { recursive: true, force: true });
});

const { shroud, json } = shroudRunner(() => rt.url, home);
/** The recipient: a config directory of their own, never signed in. */
const stranger = { configDir: join(home, 'stranger') };

describe('shroud receive', () => {
  it("the sender uploads and shares; a stranger receives by link (at the link's origin) and by token, byte-identical", { timeout: 300_000 }, async () => {
    await json(['register', 'sender', '-p', 'account pass 1']);
    await json(['login', 'sender', '-p', 'account pass 1']);
    writeFileSync(join(home, 'report.bin'), bytes);
    fileId = (await json(['upload', 'report.bin', '-p', 'file pass 9'])).id;
    const link = await json(['share', fileId, '--expires', '1h']);
    expect(link.shareUrl).toBe(`${rt.url}/share/${link.shareToken}`);

    // By link, the password on stdin, an API URL that answers nothing: the link's origin is used.
    const byLink = await shroud(['--api-url', 'http://127.0.0.1:9', 'receive', link.shareUrl], { ...stranger, input: 'file pass 9\n' });
    expect(byLink.code, byLink.stderr).toBe(0);
    expect(byLink.stdout).toMatch(/saved\s+.*report\.bin/);
    expect(Buffer.compare(readFileSync(join(home, 'report.bin')), bytes)).toBe(0);
    rmSync(join(home, 'report.bin'));

    const byToken = await shroud(['receive', link.shareToken, 'copy.bin', '-p', 'file pass 9', '--json'], stranger);
    expect(byToken.code, byToken.stderr).toBe(0);
    expect(JSON.parse(byToken.stdout)).toMatchObject({ filename: 'report.bin', size: bytes.length });
    expect(Buffer.compare(readFileSync(join(home, 'copy.bin')), bytes)).toBe(0);
  });

  it('a wrong file password, a revoked link, an expired link and a non-link each say why', { timeout: 300_000 }, async () => {
    const link = await json(['share', fileId, '--expires', '1h']);
    const wrong = await shroud(['receive', link.shareUrl, 'x.bin', '-p', 'not it'], stranger);
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(/wrong file password/);

    const listed = (await json(['shares'])).find((l: { expiresAt: string }) => l.expiresAt === link.expiresAt);
    await json(['shares', 'revoke', listed.id]);
    const revoked = await shroud(['receive', link.shareUrl, 'x.bin', '-p', 'file pass 9'], stranger);
    expect(revoked.code).toBe(4);
    expect(revoked.stderr).toMatch(/SHARE_REVOKED: this link was revoked by the person who shared it/);

    const short = await json(['share', fileId, '--expires', '60s']);
    // A minute on the service's clock (lib/clock.ts, this process's: the runtime runs here), not a minute's wait.
    advanceClock(61_000);
    const expired = await shroud(['receive', short.shareUrl, 'x.bin', '-p', 'file pass 9'], stranger);
    expect(expired.code).toBe(4);
    expect(expired.stderr).toMatch(/SHARE_EXPIRED: this link has expired/);

    const notALink = await shroud(['receive', 'https://example.test/files/abc'], stranger);
    expect(notALink.code).toBe(2);
    expect(notALink.stderr).toMatch(/not a share link/);
  });

  it('in a real terminal (tmux): the prompt names the file, the password is not echoed, the file is saved', { timeout: 180_000 }, async () => {
    const link = await json(['share', fileId, '--expires', '1h']);
    const session = `shroud-receive-${process.pid}`;
    const env = `SHROUD_CONFIG_DIR=${join(home, 'tmux')} NO_COLOR=1`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '160', '-y', '40', '-c', home]);
    const screen = () => execFileSync('tmux', ['capture-pane', '-p', '-t', session]).toString();
    const until = async (re: RegExp) => {
      for (let i = 0; i < 240 && !re.test(screen()); i++) await new Promise((r) => setTimeout(r, 500));
      return screen();
    };
    try {
      execFileSync('tmux', ['send-keys', '-t', session, `${env} ${process.execPath} ${BIN} receive ${link.shareUrl} tmux.bin; echo "ex""it=$?"`, 'Enter']);
      // tmux's capture-pane drops a line's trailing spaces: the prompt's own space is not on the screen.
      const prompt = /file password for report\.bin \(146\.5 KiB\):/;
      expect(await until(prompt)).toMatch(prompt);
      execFileSync('tmux', ['send-keys', '-t', session, 'file pass 9', 'Enter']);
      const shown = await until(/exit=\d/);
      expect(shown).toMatch(/saved\s+\S*tmux\.bin/);
      expect(shown).toMatch(/exit=0/);
      expect(shown).not.toContain('file pass 9');
      expect(Buffer.compare(readFileSync(join(home, 'tmux.bin')), bytes)).toBe(0);
    } finally {
      execFileSync('tmux', ['kill-session', '-t', session]);
    }
  });
});
