import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { OAuth2Issuer, OAuth2Service } from 'oauth2-mock-server';
import { clock } from '#lib/clock.ts';

/**
 * The local OpenID provider of `npm start` and the tests: npm `oauth2-mock-server` on a free
 * loopback port, standing in for google, github and x when they are not configured, so social
 * login works with no internet and no accounts anywhere.
 *
 * It signs its tokens (RS256, a key made at start) and publishes discovery and JWKS, so the API
 * verifies ID tokens exactly as it would Google's. Its authorize endpoint signs in at once, with
 * no page: the account is the `login_hint` of the authorization request (the API passes
 * `/api/zkauth/login?login_hint=alice` through), or `demo` without one. Account `<h>` of provider
 * `<p>` has:
 *   subject  decimal of the first 48 bits of SHA-256("<p>:<h>") (stable across restarts)
 *   name     "<H>" (capitalised hint), email "<h>@example.com", avatar <issuer>/avatars/<h>.svg
 * The user endpoint answers in each provider's own shape (GitHub's /user, X's /2/users/me),
 * chosen by the client id the token was issued to (`local-<provider>`).
 */
export const LOCAL_PROVIDERS = ['google', 'github', 'x'] as const;
export type LocalProvider = (typeof LOCAL_PROVIDERS)[number];
export const DEFAULT_LOCAL_LOGIN = 'demo';

export interface LocalAccount {
  subject: string;
  login: string;
  name: string;
  email: string;
  avatar: string;
}

export function localAccount(issuer: string, provider: string, hint: string): LocalAccount {
  const login = /^[A-Za-z0-9._@+-]{1,64}$/.test(hint) ? hint.toLowerCase() : DEFAULT_LOCAL_LOGIN;
  const subject = BigInt(`0x${createHash('sha256').update(`${provider}:${login}`).digest('hex').slice(0, 12)}`).toString();
  const local = login.split('@')[0]!;
  return {
    subject,
    login,
    name: local.charAt(0).toUpperCase() + local.slice(1),
    email: `${local}@example.com`,
    avatar: `${issuer}/avatars/${encodeURIComponent(local)}.svg`,
  };
}

const providerOfClient = (clientId: unknown): LocalProvider | undefined => {
  const id = typeof clientId === 'string' ? clientId.replace(/^local-/, '') : '';
  return (LOCAL_PROVIDERS as readonly string[]).includes(id) ? (id as LocalProvider) : undefined;
};

/** The user object as the provider's own API would answer it. */
function userinfoBody(provider: LocalProvider, a: LocalAccount): Record<string, unknown> {
  switch (provider) {
    case 'github':
      return { id: Number(a.subject), login: a.login, name: a.name, email: a.email, avatar_url: a.avatar };
    case 'x':
      return { data: { id: a.subject, name: a.name, username: a.login, profile_image_url: a.avatar } };
    case 'google':
      return { sub: a.subject, name: a.name, email: a.email, email_verified: true, picture: a.avatar };
  }
}

function avatarSvg(name: string): string {
  const hue = createHash('sha256').update(name).digest()[0]! * 1.4;
  const letter = (name[0] ?? '?').toUpperCase().replace(/[^A-Z0-9]/, '?');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96"><rect width="96" height="96" rx="48" fill="hsl(${hue.toFixed(0)},55%,45%)"/><text x="48" y="62" font-family="sans-serif" font-size="44" text-anchor="middle" fill="#fff">${letter}</text></svg>`;
}

const jwtPayload = (token: string): Record<string, unknown> => {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
  } catch {
    return {};
  }
};

export interface LocalOAuthProvider {
  issuer: string;
  /** The environment that points `providers` at this server. */
  env(providers: readonly LocalProvider[]): Record<string, string>;
  stop(): Promise<void>;
}

export async function startLocalOAuthProvider(): Promise<LocalOAuthProvider> {
  const issuer = new OAuth2Issuer();
  await issuer.keys.generate('RS256');
  const service = new OAuth2Service(issuer);
  // code → the account and client it was issued for (the mock itself always says "johndoe").
  const codes = new Map<string, { account: LocalAccount; provider: LocalProvider }>();
  // provider:subject → account, for the user endpoint (a subject is a hash: it cannot be reversed).
  const accounts = new Map<string, LocalAccount>();

  service.on('beforeAuthorizeRedirect', (redirect: { url: URL }, req: IncomingMessage & { query: Record<string, unknown> }) => {
    const code = redirect.url.searchParams.get('code');
    const provider = providerOfClient(req.query.client_id);
    if (!code || !provider) return;
    const hint = typeof req.query.login_hint === 'string' ? req.query.login_hint : DEFAULT_LOCAL_LOGIN;
    codes.set(code, { account: localAccount(issuer.url!, provider, hint), provider });
    setTimeout(() => codes.delete(code), 10 * 60_000).unref();
  });

  service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }, req: IncomingMessage & { body: Record<string, unknown> }) => {
    const issued = typeof req.body?.code === 'string' ? codes.get(req.body.code) : undefined;
    if (!issued) return;
    accounts.set(`${issued.provider}:${issued.account.subject}`, issued.account);
    // The API's clock (tests move it) rules token times, as a real provider's clock agrees with ours.
    const now = clock.nowSeconds();
    Object.assign(token.payload, { iat: now, nbf: now - 10, exp: now + 3600, sub: issued.account.subject, client_id: `local-${issued.provider}` });
    if (token.payload.aud !== undefined) {
      // The ID token: OpenID profile claims.
      Object.assign(token.payload, { name: issued.account.name, email: issued.account.email, email_verified: true, picture: issued.account.avatar });
    }
  });
  service.on('beforeResponse', (_res: unknown, req: IncomingMessage & { body: Record<string, unknown> }) => {
    if (typeof req.body?.code === 'string') codes.delete(req.body.code); // a code works once
  });

  service.on('beforeUserinfo', (res: { body: unknown; statusCode: number }, req: IncomingMessage) => {
    const auth = req.headers.authorization ?? '';
    const claims = jwtPayload(auth.replace(/^Bearer\s+/i, ''));
    const provider = providerOfClient(claims.client_id);
    if (!provider || typeof claims.sub !== 'string') {
      res.statusCode = 401;
      res.body = { error: 'invalid_token' };
      return;
    }
    const account = accounts.get(`${provider}:${claims.sub}`);
    if (!account) {
      res.statusCode = 401;
      res.body = { error: 'invalid_token' };
      return;
    }
    res.body = userinfoBody(provider, account);
  });

  const server: Server = createServer((req, res) => {
    const m = /^\/avatars\/([^/?]{1,64})\.svg$/.exec(req.url ?? '');
    if (req.method === 'GET' && m) {
      res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' });
      res.end(avatarSvg(decodeURIComponent(m[1]!)));
      return;
    }
    service.requestHandler(req, res);
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok());
  });
  const port = (server.address() as { port: number }).port;
  issuer.url = `http://localhost:${port}`;
  const url = issuer.url;

  return {
    issuer: url,
    env(providers) {
      const out: Record<string, string> = {};
      for (const p of providers) {
        const P = `OAUTH_${p.toUpperCase()}_`;
        Object.assign(out, {
          [`${P}CLIENT_ID`]: `local-${p}`,
          // Not a credential: the local provider accepts any secret.
          [`${P}CLIENT_SECRET`]: `local-${p}-secret`,
          [`${P}AUTHORIZE_URL`]: `${url}/authorize`,
          [`${P}TOKEN_URL`]: `${url}/token`,
          [`${P}USERINFO_URL`]: `${url}/userinfo`,
          [`${P}ISSUER`]: url,
        });
      }
      return out;
    },
    stop: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
