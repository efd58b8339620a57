import { constants, createPublicKey, timingSafeEqual, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { clock } from '#lib/clock.ts';
import type { ProviderConfig, ProviderId } from './providers.ts';

/**
 * The provider's account as the login needs it: a stable subject id (the account key, never the
 * email), and display fields. Read from the provider's user endpoint in its own shape, or from a
 * verified OpenID Connect ID token.
 */
export interface Profile {
  subject: string;
  email?: string;
  name?: string;
  avatar?: string;
}

/** Outgoing HTTP for profiles and keys; replaceable in tests (arctic's token calls use global fetch). */
export const http = { fetch: (input: string, init?: RequestInit) => globalThis.fetch(input, init) };

const TIMEOUT_MS = 8000;

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await http.fetch(url, { headers: { accept: 'application/json', 'user-agent': 'shroud', ...headers }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`${new URL(url).host} answered ${res.status}`);
  }
  return res.json();
}

const str = (v: unknown, max: number): string | undefined => (typeof v === 'string' && v.length > 0 ? v.slice(0, max) : undefined);
const idOf = (v: unknown): string | undefined =>
  typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : typeof v === 'string' && /^[\x21-\x7e]{1,255}$/.test(v) ? v : undefined;
const email = (v: unknown) => {
  const s = str(v, 320);
  return s && /^[^\s@]+@[^\s@]+$/.test(s) ? s : undefined;
};
const httpUrl = (v: unknown) => {
  const s = str(v, 2048);
  if (!s) return undefined;
  try {
    const u = new URL(s);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : undefined;
  } catch {
    return undefined;
  }
};

/** The provider's own user object (GitHub /user, X /2/users/me, Discord /users/@me, OIDC userinfo). */
export function parseUserinfo(provider: ProviderId, body: unknown): Profile {
  const o = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  let p: Partial<Profile>;
  switch (provider) {
    case 'github':
      p = { subject: idOf(o.id), email: email(o.email), name: str(o.name, 200) ?? str(o.login, 200), avatar: httpUrl(o.avatar_url) };
      break;
    case 'x': {
      const d = (o.data && typeof o.data === 'object' ? o.data : {}) as Record<string, unknown>;
      p = { subject: idOf(d.id), email: email(d.confirmed_email), name: str(d.name, 200) ?? str(d.username, 200), avatar: httpUrl(d.profile_image_url) };
      break;
    }
    case 'discord': {
      const id = idOf(o.id);
      const hash = typeof o.avatar === 'string' && /^[a-z0-9_]{1,64}$/i.test(o.avatar) ? o.avatar : undefined;
      p = {
        subject: id,
        email: o.verified === false ? undefined : email(o.email),
        name: str(o.global_name, 200) ?? str(o.username, 200),
        avatar: id && hash ? `https://cdn.discordapp.com/avatars/${id}/${hash}.png` : undefined,
      };
      break;
    }
    case 'google':
      p = { subject: idOf(o.sub), email: email(o.email), name: str(o.name, 200), avatar: httpUrl(o.picture) };
      break;
  }
  if (!p.subject) throw new Error(`${provider}: the profile has no subject id`);
  return p as Profile;
}

/** GitHub hides a private email from /user: the primary verified one comes from /user/emails. */
export async function githubPrimaryEmail(accessToken: string): Promise<string | undefined> {
  const list = await getJson('https://api.github.com/user/emails', { authorization: `Bearer ${accessToken}` });
  if (!Array.isArray(list)) return undefined;
  const primary = list.find((e) => e && e.primary && e.verified);
  return email(primary?.email);
}

// ---- OpenID Connect ID tokens --------------------------------------------------------------

interface Jwk extends JsonWebKey {
  kid?: string;
  alg?: string;
}

const JWKS_CACHE_MS = 10 * 60 * 1000;
const jwksCache = new Map<string, { at: number; keys: Jwk[] }>();
const discovered = new Map<string, string>();

async function jwksUrlOf(cfg: ProviderConfig): Promise<string> {
  if (cfg.jwksUrl) return cfg.jwksUrl;
  if (!cfg.issuer) throw new Error(`${cfg.id}: no issuer to discover keys from`);
  let u = discovered.get(cfg.issuer);
  if (!u) {
    const doc = (await getJson(`${cfg.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`)) as { jwks_uri?: unknown };
    if (typeof doc?.jwks_uri !== 'string') throw new Error(`${cfg.id}: discovery document without jwks_uri`);
    u = doc.jwks_uri;
    discovered.set(cfg.issuer, u);
  }
  return u;
}

async function keyFor(url: string, kid: string | undefined): Promise<Jwk | undefined> {
  const pick = (keys: Jwk[]) => keys.find((k) => (kid === undefined ? true : k.kid === kid));
  const hit = jwksCache.get(url);
  if (hit && Date.now() - hit.at < JWKS_CACHE_MS) {
    const k = pick(hit.keys);
    if (k) return k;
  }
  // Unknown kid: the provider may have rotated its keys since we cached them.
  const body = (await getJson(url)) as { keys?: unknown };
  const keys = Array.isArray(body?.keys) ? (body.keys as Jwk[]) : [];
  jwksCache.set(url, { at: Date.now(), keys });
  return pick(keys);
}

const b64json = (s: string) => JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Record<string, unknown>;

function verifySignature(alg: string, key: KeyObject, data: Buffer, sig: Buffer): boolean {
  switch (alg) {
    case 'RS256':
      return verify('sha256', data, key, sig);
    case 'PS256':
      return verify('sha256', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }, sig);
    case 'ES256':
      return verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig);
    case 'EdDSA':
      return verify(null, data, key, sig);
    default:
      return false;
  }
}

const sameString = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Skew allowed between the provider's clock and ours. */
const SKEW_SECONDS = 120;

/**
 * An ID token from the token endpoint, checked as OpenID Connect Core §3.1.3.7 says: signature
 * by one of the issuer's published keys (no `none`, no HMAC), `iss`, `aud` (our client id),
 * `exp`/`iat` against our clock, and the `nonce` we sent.
 */
export async function verifyIdToken(idToken: string, cfg: ProviderConfig, expectedNonce: string): Promise<Record<string, unknown>> {
  const parts = idToken.split('.');
  if (parts.length !== 3 || idToken.length > 16_384) throw new Error('malformed ID token');
  const header = b64json(parts[0]!);
  const claims = b64json(parts[1]!);
  const alg = String(header.alg);
  if (!['RS256', 'PS256', 'ES256', 'EdDSA'].includes(alg)) throw new Error(`ID token algorithm ${alg} refused`);
  const jwk = await keyFor(await jwksUrlOf(cfg), typeof header.kid === 'string' ? header.kid : undefined);
  if (!jwk) throw new Error('ID token signed by an unknown key');
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  const ok = verifySignature(alg, key, Buffer.from(`${parts[0]}.${parts[1]}`), Buffer.from(parts[2]!, 'base64url'));
  if (!ok) throw new Error('ID token signature invalid');
  const norm = (s: unknown) => String(s).replace(/\/$/, '');
  if (!cfg.issuer || norm(claims.iss) !== norm(cfg.issuer)) throw new Error('ID token issuer mismatch');
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!cfg.clientId || !aud.includes(cfg.clientId)) throw new Error('ID token audience mismatch');
  if (aud.length > 1 && claims.azp !== cfg.clientId) throw new Error('ID token authorized party mismatch');
  const now = clock.nowSeconds();
  if (typeof claims.exp !== 'number' || claims.exp + SKEW_SECONDS < now) throw new Error('ID token expired');
  if (typeof claims.iat === 'number' && claims.iat - SKEW_SECONDS > now) throw new Error('ID token issued in the future');
  if (typeof claims.nonce !== 'string' || !sameString(claims.nonce, expectedNonce)) throw new Error('ID token nonce mismatch');
  return claims;
}
