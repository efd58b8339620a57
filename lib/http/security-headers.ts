import { config } from '#lib/config.ts';

/**
 * Headers every answer carries. The API serves JSON, binary downloads and redirects, never a page
 * of its own, so the content policy forbids everything; browsers must not sniff types or frame it.
 * HSTS only where the API is served over HTTPS (AWS), never on plain-http localhost.
 */
export function securityHeaders(settings: { PUBLIC_BASE_URL?: string } = config): Record<string, string> {
  const headers: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
  if (settings.PUBLIC_BASE_URL?.startsWith('https:')) headers['strict-transport-security'] = 'max-age=63072000; includeSubDomains';
  return headers;
}
