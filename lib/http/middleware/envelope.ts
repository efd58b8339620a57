import { envelope as wrap } from '../envelope.ts';
import { groups, type Envelope } from '../groups.ts';
import { Reply } from '../reply.ts';
import type { HttpMiddleware, Result } from './state.ts';

/** What a handler returned (plain data, or a Reply) as API Gateway's structured result, in the group's envelope. */
export function toResult(style: Envelope, out: unknown): Result {
  if (out instanceof Reply) {
    const headers: Record<string, string> = { ...(out.opts.headers ?? {}) };
    if (out.opts.binary) {
      return { statusCode: out.status, headers, cookies: out.opts.cookies, isBase64Encoded: true, body: out.opts.binary.toString('base64') };
    }
    if (out.body === undefined) return { statusCode: out.status, headers, cookies: out.opts.cookies, body: '' };
    headers['content-type'] ??= 'application/json';
    const body = out.opts.bare ? out.body : wrap(style, out.body);
    return { statusCode: out.status, headers, cookies: out.opts.cookies, body: JSON.stringify(body) };
  }
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(wrap(style, out ?? {})) };
}

/** Shapes the handler's answer: 200 in the group's envelope for plain data, or the Reply as given. */
export const envelope = (): HttpMiddleware => ({
  after: (request) => {
    if (request.internal.replayed) {
      request.response = request.internal.replayed;
      return;
    }
    request.response = toResult(groups[request.internal.route.group].envelope, request.response as unknown);
  },
});
