import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import * as z from 'zod';

/**
 * Whose address a request comes from, for the per-address rate limits of requests without a
 * session. Behind CloudFront (cdk/constructs/web-hosting.ts) API Gateway's `sourceIp` is the edge's
 * address, shared by everyone behind it: the distribution's viewer-request function writes the
 * viewer's address into {@link VIEWER_ADDRESS_HEADER} (overwriting whatever the client sent), and
 * its origin adds {@link ORIGIN_SECRET_HEADER} with a generated secret. The raw execute-api
 * endpoint stays public, so the address header is believed only next to the right secret;
 * otherwise, and whenever no secret is configured (locally, in tests), `sourceIp` as before.
 */
export const VIEWER_ADDRESS_HEADER = 'x-shroud-viewer-address';
export const ORIGIN_SECRET_HEADER = 'x-shroud-origin-secret';

const originSecretConfig = z.object({
  /** Set on AWS from Secrets Manager (a dynamic reference): the value CloudFront's origin sends. */
  CLOUDFRONT_ORIGIN_SECRET: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .min(32, 'at least 32 characters')
      .max(256, 'at most 256 characters')
      .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces (an HTTP header value)')
      .optional(),
  ),
});

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * Whether `presented` is the secret whose SHA-256 is `expected`, in time independent of where
 * they differ and of the presented length: both sides are equal-length digests for
 * `timingSafeEqual`.
 */
export function secretMatches(presented: string | undefined, expected: Buffer): boolean {
  if (presented === undefined) return false;
  return timingSafeEqual(digest(presented), expected);
}

/** An IPv4 or IPv6 address as written by CloudFront (`event.viewer.ip`), else undefined. */
export function addressOf(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v && v.length <= 45 && isIP(v) ? v : undefined;
}

export type ClientAddressResolver = (sourceIp: string, headers: Record<string, string>) => string;

/** The resolver for a configured secret (or none): lower-cased header names in. */
export function clientAddressResolver(secret: string | undefined): ClientAddressResolver {
  if (!secret) return (sourceIp) => sourceIp;
  const expected = digest(secret);
  return (sourceIp, headers) => {
    if (!secretMatches(headers[ORIGIN_SECRET_HEADER], expected)) return sourceIp;
    return addressOf(headers[VIEWER_ADDRESS_HEADER]) ?? sourceIp;
  };
}

/**
 * What the rate limits count an address as: an IPv4 address itself, an IPv6 address by its /64
 * (one subscriber's usual allocation, so a client cannot take a fresh limit per address of its
 * own prefix). CloudFront serves viewers over IPv6, which API Gateway's regional endpoint did not.
 */
export function rateKeyOfAddress(ip: string): string {
  if (isIP(ip) !== 6) return `ip:${ip}`;
  const groups = expandIpv6(ip);
  return groups ? `ip6:${groups.slice(0, 4).join(':')}::/64` : `ip:${ip}`;
}

/** The eight 16-bit groups of an IPv6 address (`::` and a trailing dotted IPv4 expanded), lower-case hex. */
function expandIpv6(ip: string): string[] | undefined {
  let text = ip.toLowerCase().split('%')[0]!;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -v4[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  const groups = tail === undefined ? left : [...left, ...Array<string>(missing).fill('0'), ...right];
  if (groups.length !== 8 || groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return groups.map((g) => g.replace(/^0+(?=.)/, ''));
}

/**
 * The configured secret, checked as lib/config.ts's `readConfig` checks (same message, never the
 * value). Not through `readConfig` itself: importing lib/config.ts evaluates the platform config,
 * and this module loads with the http state, which tests import before the local runtime has set
 * its environment (the data clients would then be built for AWS).
 */
export function readOriginSecret(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const parsed = originSecretConfig.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data.CLOUDFRONT_ORIGIN_SECRET;
}

/** Read and checked once, at cold start. */
export const resolveClientAddress: ClientAddressResolver = clientAddressResolver(readOriginSecret());
