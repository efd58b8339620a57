import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, parseUserinfo, verifyIdToken } from '#lib/auth/oauth/profile.ts';
import { listProviders, readOAuthConfig, type ProviderConfig } from '#lib/auth/oauth/providers.ts';
import { prefersJson } from '#lib/auth/oauth/flow.ts';

const ISSUER = 'https://id.example';
const JWKS = 'https://id.example/jwks';
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

let rsa: { privateKey: KeyObject; publicKey: KeyObject };
let other: { privateKey: KeyObject; publicKey: KeyObject };
const realFetch = http.fetch;
let jwksFetches = 0;

beforeAll(() => {
  rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  http.fetch = async (url: string) => {
    if (url !== JWKS) throw new Error(`unexpected fetch ${url}`);
    jwksFetches++;
    return new Response(JSON.stringify({ keys: [{ ...rsa.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' }] }), {
      headers: { 'content-type': 'application/json' },
    });
  };
});
afterAll(() => {
  http.fetch = realFetch;
});

const cfg = { id: 'google', clientId: 'client-1', issuer: ISSUER, jwksUrl: JWKS } as ProviderConfig;
const now = () => Math.floor(Date.now() / 1000);
const claims = (over: Record<string, unknown> = {}) => ({
  iss: ISSUER,
  aud: 'client-1',
  sub: '1234',
  nonce: 'n-1',
  iat: now(),
  exp: now() + 600,
  email: 'a@example.com',
  name: 'A',
  picture: 'https://img.example/a.png',
  ...over,
});

function jwt(payload: object, { kid = 'k1', alg = 'RS256', key = rsa.privateKey }: { kid?: string; alg?: string; key?: KeyObject } = {}) {
  const head = b64({ alg, kid, typ: 'JWT' });
  const body = b64(payload);
  const sig = alg === 'none' ? '' : sign('sha256', Buffer.from(`${head}.${body}`), key).toString('base64url');
  return `${head}.${body}.${sig}`;
}

describe('verifyIdToken', () => {
  it('accepts a token signed by the issuer for us, with our nonce', async () => {
    const c = await verifyIdToken(jwt(claims()), cfg, 'n-1');
    expect(parseUserinfo('google', c)).toEqual({ subject: '1234', email: 'a@example.com', name: 'A', avatar: 'https://img.example/a.png' });
  });

  it.each([
    ['another nonce', () => jwt(claims({ nonce: 'n-2' }))],
    ['no nonce', () => jwt(claims({ nonce: undefined }))],
    ['another audience', () => jwt(claims({ aud: 'client-2' }))],
    ['another issuer', () => jwt(claims({ iss: 'https://evil.example' }))],
    ['an expired token', () => jwt(claims({ exp: now() - 3600 }))],
    ['a token from the future', () => jwt(claims({ iat: now() + 3600 }))],
    ['another key', () => jwt(claims(), { key: other.privateKey })],
    ['an unknown kid', () => jwt(claims(), { kid: 'k9' })],
    ['alg none', () => jwt(claims(), { alg: 'none' })],
    [
      'HS256 keyed with the public key',
      () => {
        const head = b64({ alg: 'HS256', kid: 'k1' });
        const body = b64(claims());
        const mac = createHmac('sha256', rsa.publicKey.export({ format: 'pem', type: 'spki' }))
          .update(`${head}.${body}`)
          .digest('base64url');
        return `${head}.${body}.${mac}`;
      },
    ],
    [
      'a tampered payload',
      () => {
        const [h, , s] = jwt(claims()).split('.');
        return `${h}.${b64(claims({ sub: '9999' }))}.${s}`;
      },
    ],
    ['garbage', () => 'not.a.jwt'],
  ])('refuses %s', async (_name, make) => {
    await expect(verifyIdToken(make(), cfg, 'n-1')).rejects.toThrow();
  });

  it('refetches the key set for an unknown kid (key rotation), not for every token', async () => {
    const before = jwksFetches;
    await verifyIdToken(jwt(claims()), cfg, 'n-1');
    await verifyIdToken(jwt(claims()), cfg, 'n-1');
    expect(jwksFetches).toBe(before);
    await expect(verifyIdToken(jwt(claims(), { kid: 'rotated' }), cfg, 'n-1')).rejects.toThrow(/unknown key/);
    expect(jwksFetches).toBe(before + 1);
  });
});

describe('parseUserinfo', () => {
  it("reads each provider's own shape", () => {
    expect(parseUserinfo('github', { id: 42, login: 'octo', name: null, email: 'o@example.com', avatar_url: 'https://a.example/o' })).toEqual({
      subject: '42',
      name: 'octo',
      email: 'o@example.com',
      avatar: 'https://a.example/o',
    });
    expect(parseUserinfo('x', { data: { id: '77', name: 'Ex', username: 'ex', profile_image_url: 'https://a.example/x' } })).toMatchObject({
      subject: '77',
      name: 'Ex',
    });
    expect(
      parseUserinfo('discord', {
        id: '80351110224678912',
        username: 'nelly',
        global_name: 'Nelly',
        avatar: '8342729096ea3675442027381ff50dfe',
        email: 'n@example.com',
        verified: true,
      }),
    ).toEqual({
      subject: '80351110224678912',
      name: 'Nelly',
      email: 'n@example.com',
      avatar: 'https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png',
    });
  });

  it('needs a subject, and drops what is not an email or an http(s) URL', () => {
    expect(() => parseUserinfo('github', { login: 'no-id' })).toThrow(/subject/);
    expect(parseUserinfo('google', { sub: 's', email: 'not an email', picture: 'javascript:alert(1)' })).toEqual({ subject: 's' });
    // An unverified Discord email is not kept.
    expect(parseUserinfo('discord', { id: '1', email: 'n@example.com', verified: false }).email).toBeUndefined();
  });
});

describe('provider configuration', () => {
  it('enables a provider with a client id and secret, and overrides endpoints as a pair', () => {
    const c = readOAuthConfig({
      OAUTH_GITHUB_CLIENT_ID: 'id',
      OAUTH_GITHUB_CLIENT_SECRET: 'secret',
      OAUTH_GOOGLE_CLIENT_ID: 'only-id',
      OAUTH_X_CLIENT_ID: 'x',
      OAUTH_X_CLIENT_SECRET: 'y',
      OAUTH_X_AUTHORIZE_URL: 'http://localhost:9/authorize',
      OAUTH_X_TOKEN_URL: 'http://localhost:9/token',
      OAUTH_REDIRECT_ORIGINS: 'https://app.example, https://admin.example/',
    });
    expect(listProviders(c).map((p) => [p.id, p.enabled])).toEqual([
      ['google', false],
      ['github', true],
      ['x', true],
      ['discord', false],
    ]);
    expect(c.providers.github.endpoints).toBeUndefined();
    expect(c.providers.x.endpoints).toEqual({ authorize: 'http://localhost:9/authorize', token: 'http://localhost:9/token' });
    expect(c.providers.google.jwksUrl).toBe('https://www.googleapis.com/oauth2/v3/certs');
    expect(c.redirectOrigins).toEqual(['https://app.example', 'https://admin.example']);
  });

  it('fails fast on half an override, a bad URL or a redirect origin with a path', () => {
    expect(() => readOAuthConfig({ OAUTH_X_AUTHORIZE_URL: 'http://localhost:9/authorize' })).toThrow(/OAUTH_X_TOKEN_URL/);
    expect(() => readOAuthConfig({ OAUTH_GITHUB_TOKEN_URL: 'ftp://x', OAUTH_GITHUB_AUTHORIZE_URL: 'http://a' })).toThrow(/OAUTH_GITHUB_TOKEN_URL/);
    expect(() => readOAuthConfig({ OAUTH_REDIRECT_ORIGINS: 'https://app.example/path' })).toThrow(/OAUTH_REDIRECT_ORIGINS/);
  });
});

describe('prefersJson', () => {
  it('follows Accept and its q-values', () => {
    expect(prefersJson('application/json')).toBe(true);
    expect(prefersJson('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(false);
    expect(prefersJson('text/html;q=0.5, application/json')).toBe(true);
    expect(prefersJson('application/json;q=0')).toBe(false);
    expect(prefersJson(undefined)).toBe(false);
  });
});
