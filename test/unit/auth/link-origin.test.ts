import { describe, expect, it } from 'vitest';
import { linkStartProblem, trustedOrigins } from '#lib/auth/oauth/link-origin.ts';

const own = 'https://api.example';
const trusted = [own, 'https://app.example'];

describe('where an account-link flow may start from', () => {
  it.each([
    [{ 'sec-fetch-site': 'same-origin' }],
    [{ 'sec-fetch-site': 'none' }],
    [{ 'sec-fetch-site': 'same-site', referer: 'https://app.example/settings' }],
    [{ referer: 'https://api.example/x?y=1' }],
    [{ origin: 'https://app.example' }],
  ])('allows %o', (headers) => {
    expect(linkStartProblem(headers, trusted)).toBeUndefined();
  });

  it.each([
    [{ 'sec-fetch-site': 'cross-site' }, /cross-site/],
    [{ 'sec-fetch-site': 'cross-site', referer: 'https://app.example/' }, /cross-site/],
    [{ 'sec-fetch-site': 'same-origin', referer: 'https://evil.example/' }, /another site/],
    [{ 'sec-fetch-site': 'same-site' }, /names no origin/],
    [{ referer: 'https://api.example.evil.example/' }, /another site/],
    [{ origin: 'null' }, /another site/],
    [{ referer: 'not a url' }, /another site/],
    [{}, /names no origin/],
  ])('refuses %o', (headers, reason) => {
    expect(linkStartProblem(headers, trusted)).toMatch(reason);
  });

  it("a native app's start (challenge + loopback) may name no origin; what a browser says about another site is still refused", () => {
    expect(linkStartProblem({}, trusted, true)).toBeUndefined();
    expect(linkStartProblem({ 'sec-fetch-site': 'same-site' }, trusted, true)).toBeUndefined();
    expect(linkStartProblem({ 'sec-fetch-site': 'cross-site' }, trusted, true)).toMatch(/cross-site/);
    expect(linkStartProblem({ origin: 'https://evil.example' }, trusted, true)).toMatch(/another site/);
  });

  it('trusts the API origin and the listed CORS origins, never a wildcard', () => {
    const settings = { CORS_ORIGINS: ['*', 'https://app.example/'] } as Parameters<typeof trustedOrigins>[1];
    expect(trustedOrigins('https://api.example/base', settings)).toEqual(['https://api.example', 'https://app.example']);
  });
});
