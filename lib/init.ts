import pkg from '../package.json' with { type: 'json' };
import * as z from 'zod';
import { groups } from '#lib/http/groups.ts';
import type { Route } from '#lib/http/route.ts';
import { config } from '#lib/config.ts';
import type { Session } from '#lib/data/sessions.ts';
import { getUser } from '#lib/data/users.ts';
import { enabledProviders } from '#lib/auth/oauth/providers.ts';
import { MAX_FILE_BYTES } from '#lib/storage/limits.ts';

/** What a terminal needs to know before its first real call. */
export async function describeEnvironment(session: Session | null, routes: readonly Route[]) {
  const present = [...new Set(routes.map((r) => r.group))];
  return {
    service: { name: config.SERVICE_NAME, version: pkg.version },
    stage: config.STAGE,
    groups: present.map((g) => `/api/${g}`),
    rateLimits: Object.fromEntries(present.map((g) => [g, { perMinute: groups[g].rateLimit }])),
    maxFileSize: MAX_FILE_BYTES,
    chains: { a: { network: config.CHAIN_A_NETWORK }, b: { network: config.CHAIN_B_NETWORK } },
    /** Social login providers a client can offer (`/api/zkauth/login?provider=`). */
    oauthProviders: enabledProviders(),
    session: await sessionOf(session),
  };
}

/** The caller's session: a live session whose account still exists, else not authenticated. */
async function sessionOf(session: Session | null) {
  const user = session ? await getUser(session.userId) : undefined;
  if (!session || !user) return { authenticated: false };
  return {
    authenticated: true,
    method: session.method,
    user: { id: user.id, username: user.username ?? null, zkId: user.zkId ?? null },
  };
}

// The answer (before the flat envelope), for the OpenAPI document.
const userRef = z.object({ id: z.string(), username: z.string().nullable(), zkId: z.string().nullable() });
export const environmentResponse = z.object({
  service: z.object({ name: z.string(), version: z.string() }),
  stage: z.string(),
  groups: z.array(z.string()),
  rateLimits: z.record(z.string(), z.object({ perMinute: z.number().int() })),
  maxFileSize: z.number().int(),
  chains: z.object({ a: z.object({ network: z.string() }), b: z.object({ network: z.string() }) }),
  oauthProviders: z.array(z.string()),
  session: z.union([z.object({ authenticated: z.literal(true), method: z.string(), user: userRef }), z.object({ authenticated: z.literal(false) })]),
});
