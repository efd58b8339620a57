import httpJsonBodyParser from '@middy/http-json-body-parser';
import { errors } from '#lib/errors.ts';
import type { HttpMiddleware } from './state.ts';

const JSON_TYPE = /^application\/(.+\+)?json/i;

/** Parses JSON when the request says JSON and has a body; other bodies stay raw for the handler (multipart, binary). */
export const jsonBody = (): HttpMiddleware => {
  const parser = httpJsonBodyParser({ disableContentTypeError: true });
  return {
    before: async (request) => {
      if (!JSON_TYPE.test(request.internal.headers['content-type'] ?? '') || !request.event.body) return;
      try {
        await parser.before!(request as never);
      } catch {
        throw errors.invalidInput('body: malformed JSON');
      }
    },
  };
};
