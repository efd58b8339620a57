import { randomBytes } from 'node:crypto';
import type { Req } from '#lib/http/endpoint.ts';
import { CLIENT_COOKIE, serializeCookie } from '#lib/http/cookies.ts';

const CLIENT_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * Who a report belongs to: the signed-in user, else the anonymous client id cookie (issued on
 * first use, so that a client can list what it sent before signing in).
 */
export function reporterOf(req: Req): { owner: string; setCookie: string[] } {
  if (req.session) return { owner: `user:${req.session.userId}`, setCookie: [] };
  const existing = req.cookies[CLIENT_COOKIE];
  if (existing && CLIENT_ID.test(existing)) return { owner: `anon:${existing}`, setCookie: [] };
  const id = randomBytes(16).toString('base64url');
  return { owner: `anon:${id}`, setCookie: [serializeCookie(CLIENT_COOKIE, id, { maxAgeSeconds: 365 * 24 * 3600 })] };
}
