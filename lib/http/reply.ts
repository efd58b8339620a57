/**
 * What a handler may return besides plain data: a status, headers and cookies, a binary body
 * or a redirect. Plain data means 200 in the group's envelope.
 */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly opts: {
      headers?: Record<string, string>;
      cookies?: string[];
      /** Skip the group's envelope (a variant the contract shows bare: functions/docs/openapi.json). */
      bare?: boolean;
      /** A binary body, sent base64 as API Gateway expects. */
      binary?: Buffer;
    } = {},
  ) {}
}

export const reply = (status: number, body: unknown, opts: Reply['opts'] = {}) => new Reply(status, body, opts);

export const binary = (bytes: Buffer, headers: Record<string, string>) =>
  new Reply(200, undefined, { binary: bytes, headers: { 'content-type': 'application/octet-stream', ...headers } });

export const redirect = (location: string, cookies: string[] = []) => new Reply(302, undefined, { headers: { location }, cookies });
