import pkg from '../package.json' with { type: 'json' };
import { groups, routes } from '#functions/routes.ts';
import { config } from '#lib/config.ts';
import type { Session } from '#lib/auth/sessions.ts';

/** API.md's file limit, enforced by storage and reported here. */
export const MAX_FILE_BYTES = 100 * 1024 * 1024;

/** What a terminal needs to know before its first real call. */
export function describeEnvironment(session: Session | null) {
  const present = [...new Set(routes.map((r) => r.group))];
  return {
    service: { name: config.SERVICE_NAME, version: pkg.version },
    stage: config.STAGE,
    groups: present.map((g) => `/api/${g}`),
    rateLimits: Object.fromEntries(present.map((g) => [g, { perMinute: groups[g].rateLimit }])),
    maxFileSize: MAX_FILE_BYTES,
    chains: { a: { network: config.CHAIN_A_NETWORK }, b: { network: config.CHAIN_B_NETWORK } },
    session: session ? { authenticated: true, userId: session.userId, method: session.method } : { authenticated: false },
  };
}
