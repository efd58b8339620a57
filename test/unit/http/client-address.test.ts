import { describe, expect, it, vi } from 'vitest';

/**
 * The client's address behind CloudFront (lib/http/client-address.ts): the viewer-address header
 * believed only next to the right origin secret, a malformed address ignored, the secret compared
 * in constant time and stripped before any handler sees it. The module reads its secret at import
 * (cold start), so this file's process has one configured before anything loads.
 */
const SECRET = vi.hoisted(() => {
  const secret = 'origin-secret-for-this-test-0123456789abcdef';
  process.env.CLOUDFRONT_ORIGIN_SECRET = secret;
  return secret;
});

// Every comparison goes through the real timingSafeEqual; the spy only records its arguments.
const compared = vi.hoisted(() => [] as [Buffer, Buffer][]);
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return {
    ...real,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push([Buffer.from(a as Buffer), Buffer.from(b as Buffer)]);
      return real.timingSafeEqual(a, b);
    },
  };
});

const {
  ORIGIN_SECRET_HEADER,
  VIEWER_ADDRESS_HEADER,
  addressOf,
  clientAddressResolver,
  rateKeyOfAddress,
  readOriginSecret,
  resolveClientAddress,
  secretMatches,
} = await import('#lib/http/client-address.ts');
const { initialState } = await import('#lib/http/middleware/state.ts');
const { eventOf, routeOf } = await import('./request.ts');
const { createHash } = await import('node:crypto');

const EDGE = '130.176.1.10'; // what API Gateway's sourceIp is behind CloudFront
const through = (secret: string | undefined, viewer: string | undefined) => ({
  ...(secret === undefined ? {} : { [ORIGIN_SECRET_HEADER]: secret }),
  ...(viewer === undefined ? {} : { [VIEWER_ADDRESS_HEADER]: viewer }),
});

describe('the client address', () => {
  const resolve = clientAddressResolver(SECRET);

  it('is the viewer address from CloudFront when the origin secret is right', () => {
    expect(resolve(EDGE, through(SECRET, '203.0.113.9'))).toBe('203.0.113.9');
    expect(resolve(EDGE, through(SECRET, '2001:db8::7'))).toBe('2001:db8::7');
    expect(resolve(EDGE, through(SECRET, ' 198.51.100.4 '))).toBe('198.51.100.4');
  });

  it('is sourceIp when the secret is missing, wrong, a prefix of the right one or longer than it', () => {
    for (const secret of [undefined, '', 'wrong', SECRET.slice(0, -1), `${SECRET}x`, SECRET.toUpperCase()]) {
      expect(resolve(EDGE, through(secret, '203.0.113.9')), String(secret)).toBe(EDGE);
    }
  });

  it('is sourceIp when the forwarded value is not one IP address', () => {
    for (const bad of [
      undefined,
      '',
      'not-an-ip',
      '203.0.113.9, 10.0.0.1',
      '203.0.113.256',
      '203.0.113.9:443',
      '[2001:db8::7]',
      '::ffff:1.2.3.4.5',
      'x'.repeat(60),
      '1.2.3.4/24',
    ]) {
      expect(resolve(EDGE, through(SECRET, bad)), JSON.stringify(bad)).toBe(EDGE);
    }
    expect(addressOf('10.0.0.1')).toBe('10.0.0.1');
    expect(addressOf('fe80::1')).toBe('fe80::1');
    expect(addressOf('localhost')).toBeUndefined();
  });

  it('without a configured secret is always sourceIp, whatever the headers say (locally, in tests)', () => {
    for (const none of [undefined, '']) {
      const plain = clientAddressResolver(none);
      expect(plain(EDGE, through(SECRET, '203.0.113.9'))).toBe(EDGE);
      expect(plain(EDGE, through(undefined, '203.0.113.9'))).toBe(EDGE);
    }
  });

  it('compares the secret in constant time: timingSafeEqual over two SHA-256 digests, whatever the presented length', () => {
    const expected = createHash('sha256').update(SECRET).digest();
    compared.length = 0;
    expect(secretMatches(SECRET, expected)).toBe(true);
    expect(secretMatches('short', expected)).toBe(false);
    expect(secretMatches('y'.repeat(10_000), expected)).toBe(false);
    expect(secretMatches(undefined, expected)).toBe(false);
    expect(compared).toHaveLength(3); // the missing header is no comparison at all
    for (const [a, b] of compared) {
      expect(a).toHaveLength(32);
      expect(b).toHaveLength(32);
      expect(b.equals(expected)).toBe(true);
    }
    expect(compared[0]![0].equals(expected)).toBe(true);
  });

  it('checks the configured secret at cold start: too short or not a header value stops the function; the message never holds the value', () => {
    expect(readOriginSecret({})).toBeUndefined();
    expect(readOriginSecret({ CLOUDFRONT_ORIGIN_SECRET: '' })).toBeUndefined();
    expect(readOriginSecret({ CLOUDFRONT_ORIGIN_SECRET: SECRET })).toBe(SECRET);
    for (const bad of ['short-secret-1234', `${'a'.repeat(40)} b`, `${'a'.repeat(40)}\n`, 'é'.repeat(40)]) {
      let message = '';
      try {
        readOriginSecret({ CLOUDFRONT_ORIGIN_SECRET: bad });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/^invalid configuration: CLOUDFRONT_ORIGIN_SECRET: /);
      expect(message).not.toContain(bad.trim());
    }
  });

  it('counts an IPv4 address by itself and an IPv6 address by its /64', () => {
    expect(rateKeyOfAddress('203.0.113.9')).toBe('ip:203.0.113.9');
    expect(rateKeyOfAddress('2001:db8:1:2:aaaa::1')).toBe('ip6:2001:db8:1:2::/64');
    expect(rateKeyOfAddress('2001:0DB8:0001:0002:ffff:0:0:9')).toBe('ip6:2001:db8:1:2::/64');
    expect(rateKeyOfAddress('2001:db8::1')).toBe('ip6:2001:db8:0:0::/64');
    expect(rateKeyOfAddress('::1')).toBe('ip6:0:0:0:0::/64');
    expect(rateKeyOfAddress('::ffff:192.0.2.1')).toBe('ip6:0:0:0:0::/64');
    expect(rateKeyOfAddress('2001:db8:1:2::')).toBe('ip6:2001:db8:1:2::/64');
    expect(rateKeyOfAddress('unknown')).toBe('ip:unknown');
    // Two addresses of one /64 share a limit; the neighbouring /64 does not.
    expect(rateKeyOfAddress('2001:db8:1:2::a')).toBe(rateKeyOfAddress('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(rateKeyOfAddress('2001:db8:1:3::a')).not.toBe(rateKeyOfAddress('2001:db8:1:2::a'));
  });
});

describe('the request state with the origin secret configured', () => {
  it('counts the viewer behind the right secret, the source address otherwise', () => {
    expect(resolveClientAddress(EDGE, through(SECRET, '203.0.113.9'))).toBe('203.0.113.9');
    const trusted = initialState(routeOf(), eventOf({ headers: through(SECRET, '203.0.113.9') }));
    expect(trusted.client).toEqual({ ip: '203.0.113.9', key: 'ip:203.0.113.9' });
    const forged = initialState(routeOf(), eventOf({ headers: through('guess', '203.0.113.9') }));
    expect(forged.client).toEqual({ ip: '192.0.2.7', key: 'ip:192.0.2.7' });
    const bare = initialState(routeOf(), eventOf({ headers: through(undefined, '203.0.113.9') }));
    expect(bare.client.ip).toBe('192.0.2.7');
  });

  it('strips the origin secret from the headers the handler and the event carry', () => {
    const event = eventOf({ headers: { 'X-Shroud-Origin-Secret': SECRET, [VIEWER_ADDRESS_HEADER]: '203.0.113.9', accept: 'application/json' } });
    const state = initialState(routeOf(), event);
    expect(state.client.ip).toBe('203.0.113.9');
    expect(state.headers).toEqual({ [VIEWER_ADDRESS_HEADER]: '203.0.113.9', accept: 'application/json' });
    expect(JSON.stringify(event)).not.toContain(SECRET);
  });
});
