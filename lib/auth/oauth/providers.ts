import * as z from 'zod';
import { readConfig } from '#lib/config.ts';

/**
 * The social identity providers of `/api/zkauth`. Four are known; each is enabled exactly when
 * its client id and secret are configured (`OAUTH_<ID>_CLIENT_ID`, `OAUTH_<ID>_CLIENT_SECRET`).
 *
 * Endpoints: by default the provider's real ones, through arctic's class for it. Setting
 * `OAUTH_<ID>_AUTHORIZE_URL` and `OAUTH_<ID>_TOKEN_URL` (and optionally `_USERINFO_URL`,
 * `_ISSUER`, `_JWKS_URL`) switches the provider to arctic's generic `OAuth2Client` against those
 * endpoints, always with PKCE (S256): that is how the local runtime points every provider at its
 * loopback OpenID provider, and how a staging deployment could use a corporate one.
 *
 * `OAUTH_REDIRECT_ORIGINS`: absolute origins `redirect=` may point to after login (besides
 * relative paths on the API's own origin). Callback URLs are `PUBLIC_BASE_URL` +
 * `/api/zkauth/callback/<id>`: register exactly that at each provider.
 */
export const PROVIDER_IDS = ['google', 'github', 'x', 'discord'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

interface Known {
  id: ProviderId;
  name: string;
  icon: string;
  /** OpenID providers get a nonce and their profile from the verified ID token. */
  openid: boolean;
  scopes: string[];
  /** Real endpoints, used when nothing is overridden (arctic's classes hold authorize/token). */
  userinfoUrl?: string;
  issuer?: string;
  jwksUrl?: string;
  /** The authorize parameter that pre-selects an account (`login_hint` passed through). */
  hintParam?: string;
}

export const KNOWN: Record<ProviderId, Known> = {
  google: {
    id: 'google',
    name: 'Google',
    icon: 'google',
    openid: true,
    scopes: ['openid', 'email', 'profile'],
    issuer: 'https://accounts.google.com',
    jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
    hintParam: 'login_hint',
  },
  github: {
    id: 'github',
    name: 'GitHub',
    icon: 'github',
    openid: false,
    scopes: ['read:user', 'user:email'],
    userinfoUrl: 'https://api.github.com/user',
    hintParam: 'login',
  },
  x: {
    id: 'x',
    name: 'X',
    icon: 'x',
    openid: false,
    scopes: ['users.read', 'tweet.read'],
    userinfoUrl: 'https://api.x.com/2/users/me?user.fields=profile_image_url',
  },
  discord: {
    id: 'discord',
    name: 'Discord',
    icon: 'discord',
    openid: false,
    scopes: ['identify', 'email'],
    userinfoUrl: 'https://discord.com/api/users/@me',
  },
};

export interface ProviderConfig extends Known {
  enabled: boolean;
  clientId?: string;
  clientSecret?: string;
  /** Set when the endpoints are overridden: the flow then uses arctic's generic OAuth2Client. */
  endpoints?: { authorize: string; token: string };
  userinfoUrl?: string;
}

const url = z.url({ protocol: /^https?$/ }).optional();
const secret = z.string().min(1).max(512).optional();

const fields = Object.fromEntries(
  PROVIDER_IDS.flatMap((id) => {
    const p = `OAUTH_${id.toUpperCase()}_`;
    return [
      [`${p}CLIENT_ID`, secret],
      [`${p}CLIENT_SECRET`, secret],
      [`${p}AUTHORIZE_URL`, url],
      [`${p}TOKEN_URL`, url],
      [`${p}USERINFO_URL`, url],
      [`${p}ISSUER`, url],
      [`${p}JWKS_URL`, url],
    ];
  }),
) as Record<string, z.ZodOptional<z.ZodString> | typeof url>;

const schema = z
  .object({
    ...fields,
    OAUTH_REDIRECT_ORIGINS: z.string().optional(),
  })
  .superRefine((env, ctx) => {
    for (const id of PROVIDER_IDS) {
      const p = `OAUTH_${id.toUpperCase()}_`;
      const e = env as Record<string, string | undefined>;
      // Half an override would mix the real authorize endpoint with a fake token endpoint.
      if (!!e[`${p}AUTHORIZE_URL`] !== !!e[`${p}TOKEN_URL`]) {
        ctx.addIssue({ code: 'custom', path: [`${p}TOKEN_URL`], message: `${p}AUTHORIZE_URL and ${p}TOKEN_URL go together` });
      }
    }
    for (const o of (env.OAUTH_REDIRECT_ORIGINS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const ok = z.url({ protocol: /^https?$/ }).safeParse(o).success && new URL(o).origin === o.replace(/\/$/, '');
      if (!ok) ctx.addIssue({ code: 'custom', path: ['OAUTH_REDIRECT_ORIGINS'], message: `not an origin: ${o}` });
    }
  });

export interface OAuthConfig {
  providers: Record<ProviderId, ProviderConfig>;
  redirectOrigins: string[];
}

export function readOAuthConfig(env: NodeJS.ProcessEnv = process.env): OAuthConfig {
  const c = readConfig(schema, env) as Record<string, string | undefined>;
  const providers = Object.fromEntries(
    PROVIDER_IDS.map((id) => {
      const p = `OAUTH_${id.toUpperCase()}_`;
      const known = KNOWN[id];
      const clientId = c[`${p}CLIENT_ID`];
      const clientSecret = c[`${p}CLIENT_SECRET`];
      const authorize = c[`${p}AUTHORIZE_URL`];
      const token = c[`${p}TOKEN_URL`];
      const cfg: ProviderConfig = {
        ...known,
        enabled: !!clientId && !!clientSecret,
        clientId,
        clientSecret,
        endpoints: authorize && token ? { authorize, token } : undefined,
        userinfoUrl: c[`${p}USERINFO_URL`] ?? known.userinfoUrl,
        issuer: c[`${p}ISSUER`] ?? known.issuer,
        // An overridden issuer without a JWKS URL is discovered (.well-known) at first use.
        jwksUrl: c[`${p}JWKS_URL`] ?? (c[`${p}ISSUER`] ? undefined : known.jwksUrl),
      };
      return [id, cfg];
    }),
  ) as Record<ProviderId, ProviderConfig>;
  const redirectOrigins = (c.OAUTH_REDIRECT_ORIGINS ?? '')
    .split(',')
    .map((s) => s.trim().replace(/\/$/, ''))
    .filter(Boolean);
  return { providers, redirectOrigins };
}

let cached: OAuthConfig | undefined;
/** Read once, at first use in this process (cold start). */
export const oauthConfig = (): OAuthConfig => (cached ??= readOAuthConfig());

export const isProviderId = (s: string): s is ProviderId => (PROVIDER_IDS as readonly string[]).includes(s);

/** `GET /api/zkauth/providers`: every known provider, in a fixed order, with its state. */
export const listProviders = (cfg = oauthConfig()) =>
  PROVIDER_IDS.map((id) => ({ id, name: KNOWN[id].name, icon: KNOWN[id].icon, enabled: cfg.providers[id].enabled }));

export const enabledProviders = (cfg = oauthConfig()): ProviderId[] => PROVIDER_IDS.filter((id) => cfg.providers[id].enabled);
