import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loopbackRedirect, safeRedirect, withError, withParam } from '#lib/auth/oauth/redirects.ts';

/** Where a browser on the API's origin would actually go (the WHATWG parser is the browsers'). */
const API = 'https://api.shroud.example';
const ALLOWED = ['https://app.example'];
const landsOn = (target: string) => new URL(target, `${API}/api/zkauth/callback/github`).origin;

const EVIL = [
  '//evil.example',
  '///evil.example',
  '/\\evil.example',
  '\\\\evil.example',
  '\\/evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  ' //evil.example',
  'https://evil.example',
  'https:evil.example',
  'http://app.example', // right host, wrong scheme: another origin
  'https://app.example.evil.example',
  'https://app.example@evil.example',
  'https://user:pw@app.example/',
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox',
  '/a/..//evil.example',
  '/./..//evil.example',
  '/%0d%0aSet-Cookie:x=1', // kept as an encoded path: harmless, but checked below to stay on our origin
  'evil.example',
  '.evil.example',
];

describe('safeRedirect', () => {
  it('defaults to / and keeps relative paths with their query and fragment', () => {
    expect(safeRedirect(undefined, ALLOWED)).toBe('/');
    expect(safeRedirect('', ALLOWED)).toBe('/');
    expect(safeRedirect('/app/files?tab=2#top', ALLOWED)).toBe('/app/files?tab=2#top');
    expect(safeRedirect('https://app.example/home?x=1', ALLOWED)).toBe('https://app.example/home?x=1');
  });

  it('refuses every known open-redirect form', () => {
    for (const bad of EVIL) {
      const out = safeRedirect(bad, ALLOWED);
      if (out !== null) expect(landsOn(out), bad).toBe(API);
    }
    for (const bad of EVIL.filter((b) => !b.startsWith('/%0d'))) expect(safeRedirect(bad, ALLOWED), bad).toBeNull();
  });

  it('never sends the browser to a foreign origin, whatever the input (property)', () => {
    const piece = fc.constantFrom(
      '/',
      '//',
      '\\',
      '.',
      '..',
      ':',
      '@',
      '%2f',
      '%5c',
      '\t',
      ' ',
      'evil.example',
      'app.example',
      'https:',
      'javascript:',
      '#',
      '?',
      'a',
    );
    const input = fc.oneof(
      fc.string(),
      fc.array(piece, { maxLength: 12 }).map((xs) => xs.join('')),
      fc.webUrl(),
      fc.webPath(),
    );
    fc.assert(
      fc.property(input, (raw) => {
        const out = safeRedirect(raw, ALLOWED);
        if (out === null) return;
        const origin = landsOn(out);
        expect([API, ...ALLOWED]).toContain(origin);
        if (!/^https?:/i.test(raw)) expect(origin).toBe(API);
        expect(out).not.toMatch(/^\/\/|\\/);
      }),
      { numRuns: 5000 },
    );
  });

  it('accepts what a relative path really is (property)', () => {
    fc.assert(
      fc.property(fc.webPath(), fc.webQueryParameters(), (path, query) => {
        const raw = `/${path.replace(/^\/+/, '')}${query ? `?${query}` : ''}`;
        // Dot segments can normalise a path into a protocol-relative one (`/.//` → `//`): refused by design.
        fc.pre(!new URL(raw, 'http://relative.invalid').pathname.startsWith('//'));
        const out = safeRedirect(raw, ALLOWED);
        expect(out).not.toBeNull();
        expect(landsOn(out!)).toBe(API);
      }),
    );
  });
});

describe('withError', () => {
  it('adds error= to relative and absolute targets', () => {
    expect(withError('/', 'AUTH_FAILED')).toBe('/?error=AUTH_FAILED');
    expect(withError('/back?tab=2#x', 'AUTH_FAILED')).toBe('/back?tab=2&error=AUTH_FAILED#x');
    expect(withError('https://app.example/home', 'AUTH_FAILED')).toBe('https://app.example/home?error=AUTH_FAILED');
  });
});

describe('loopbackRedirect (RFC 8252 §7.3)', () => {
  it('accepts http://127.0.0.1:<port>/… and http://[::1]:<port>/… on any port', () => {
    expect(loopbackRedirect('http://127.0.0.1:53682/callback')).toBe('http://127.0.0.1:53682/callback');
    expect(loopbackRedirect('http://127.0.0.1:1/')).toBe('http://127.0.0.1:1/');
    expect(loopbackRedirect('http://127.0.0.1:80/cb')).toBe('http://127.0.0.1/cb'); // the default port, normalised
    expect(loopbackRedirect('http://127.0.0.1:65535/cb?x=1')).toBe('http://127.0.0.1:65535/cb?x=1');
    expect(loopbackRedirect('http://[::1]:8080/callback')).toBe('http://[::1]:8080/callback');
  });

  it('refuses everything else: other hosts, spellings of the address, schemes, credentials, no port', () => {
    for (const bad of [
      undefined,
      '',
      '/callback',
      'http://localhost:8080/callback', // a name, not the address (RFC 8252 §8.3)
      'http://127.0.0.1/callback', // no port
      'http://127.0.0.1:0/callback',
      'http://127.0.0.1:65536/callback',
      'http://127.0.0.1:8080', // no path
      'https://127.0.0.1:8080/callback',
      'http://127.0.0.2:8080/callback',
      'http://2130706433:8080/callback', // parses as 127.0.0.1
      'http://0x7f.0.0.1:8080/callback',
      'http://127.1:8080/callback',
      'http://[::ffff:127.0.0.1]:8080/callback',
      'http://127.0.0.1:8080@evil.example/callback',
      'http://user@127.0.0.1:8080/callback',
      'http://127.0.0.1.evil.example:8080/callback',
      'http://127.0.0.1:8080\\@evil.example/',
      'http://127.0.0.1:8080/callback#frag',
      'http://127.0.0.1:8080/\ncallback',
      ' http://127.0.0.1:8080/callback',
      'javascript:alert(1)//http://127.0.0.1:8080/',
      `http://127.0.0.1:8080/${'a'.repeat(2048)}`,
    ]) {
      expect(loopbackRedirect(bad), String(bad)).toBeNull();
    }
  });

  it('never lands anywhere but the loopback interface, whatever the input (property)', () => {
    const piece = fc.constantFrom('http://', '127.0.0.1', '[::1]', ':', '8080', '/', '@', 'evil.example', '\\', '%2f', '.', '#', '?', 'a', ' ');
    const input = fc.oneof(
      fc.string(),
      fc.array(piece, { maxLength: 10 }).map((xs) => xs.join('')),
      fc.webUrl(),
    );
    fc.assert(
      fc.property(input, (raw) => {
        const out = loopbackRedirect(raw);
        if (out === null) return;
        const u = new URL(out);
        expect(u.protocol).toBe('http:');
        expect(['127.0.0.1', '[::1]']).toContain(u.hostname);
        expect(u.username + u.password).toBe('');
      }),
      { numRuns: 5000 },
    );
  });

  it('safeRedirect still refuses loopback targets (only the loopback login takes them)', () => {
    expect(safeRedirect('http://127.0.0.1:8080/callback', ALLOWED)).toBeNull();
    expect(safeRedirect('http://[::1]:8080/callback', ALLOWED)).toBeNull();
  });

  it('withParam adds the handoff code to a loopback target', () => {
    expect(withParam('http://127.0.0.1:8080/callback?x=1', 'code', 'abc')).toBe('http://127.0.0.1:8080/callback?x=1&code=abc');
  });
});
