import { describe, expect, it } from 'vitest';
import { contentDisposition } from '#lib/storage/downloads.ts';
import { shareInput, shareSeconds } from '#lib/storage/share-links.ts';

describe('expiresIn', () => {
  it('up to 720 is hours (API.md variant A example: 48)', () => {
    expect(shareSeconds(1)).toBe(3600);
    expect(shareSeconds(48)).toBe(48 * 3600);
    expect(shareSeconds(720)).toBe(30 * 86400);
  });
  it('above 720 is seconds (variant B example: 86400)', () => {
    expect(shareSeconds(721)).toBe(721);
    expect(shareSeconds(86400)).toBe(86400);
    expect(shareSeconds(30 * 86400)).toBe(30 * 86400);
  });
  it('a string with its unit is exactly that: "600s", "10m", "48h", "7d"', () => {
    expect(shareSeconds('600s')).toBe(600);
    expect(shareSeconds('10m')).toBe(600);
    expect(shareSeconds('48h')).toBe(48 * 3600);
    expect(shareSeconds('7d')).toBe(7 * 86400);
    expect(shareSeconds('30d')).toBe(30 * 86400);
    for (const bad of ['59s', '31d', '721', '1.5h', '10 m', '10M', 'h', '-1h', ''])
      expect(() => shareSeconds(bad), bad).toThrow(expect.objectContaining({ status: 400 }));
  });
  it('outside one minute .. 30 days, or not an integer: 400', () => {
    for (const bad of [0, -5, 30 * 86400 + 1, 1e12, 2.5]) expect(() => shareSeconds(bad), String(bad)).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('the share input', () => {
  const message = (expiresIn: unknown) => {
    const r = shareInput.safeParse({ fileId: 'f', expiresIn });
    return r.success ? 'ok' : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  };
  it('says what expiresIn may be: missing, of another type, a string not of the form (too many digits included)', () => {
    expect(message(undefined)).toBe('expiresIn: required');
    for (const v of [1.5, null, {}, true])
      expect(message(v), String(v)).toMatch(/^expiresIn: a whole number \(up to 720 is hours, more is seconds\) or a string of up to 9 digits/);
    for (const v of ['10M', '10 m', '1.5h', '99999999999999999999d'])
      expect(message(v), v).toBe('expiresIn: a string of up to 9 digits and one of s, m, h, d (e.g. "48h")');
    // A whole number too large to be safe: still the whole-number wording, not zod's default.
    expect(message(1e21)).toMatch(/^expiresIn: a whole number \(up to 720 is hours, more is seconds\)/);
    for (const v of [48, '48h', '600s']) expect(message(v)).toBe('ok');
  });
});

describe('Content-Disposition', () => {
  it('escapes quotes and backslashes, replaces non-ASCII, adds the UTF-8 form', () => {
    expect(contentDisposition('a "b"\\c.txt')).toBe(`attachment; filename="a \\"b\\"\\\\c.txt"; filename*=UTF-8''a%20%22b%22%5Cc.txt`);
    expect(contentDisposition('résumé.pdf')).toBe(`attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`);
    expect(contentDisposition('x\r\nSet-Cookie: a=b')).not.toMatch(/[\r\n]/);
  });
});
