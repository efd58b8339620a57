import type { z } from 'zod';
import { errors } from '#lib/errors.ts';
import { parseWith } from '../validation.ts';
import type { HttpMiddleware } from './state.ts';

export interface Spec<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType> {
  /** JSON body schema. Omit for routes without a JSON body (GET, multipart, binary). */
  body?: B;
  query?: Q;
  params?: P;
  /**
   * The success answers by status: the schema of what the handler returns (the data, before the
   * group's envelope wraps it). Not checked at run time; the OpenAPI document and the API tests'
   * response checks read it.
   */
  responses?: Partial<Record<number, z.ZodType>>;
}

/** The body, query and path parameters checked against the route's schemas; a failure names the field (400 INVALID_INPUT). */
export const validation = <B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType>(spec: Spec<B, Q, P>): HttpMiddleware => ({
  before: (request) => {
    const { event } = request;
    // A JSON body arrives parsed (an object); a string left here was not sent as JSON.
    if (spec.body && typeof event.body === 'string' && event.body.length > 0) {
      throw errors.invalidInput('body: must be JSON (Content-Type: application/json)');
    }
    request.internal.input = {
      body: spec.body ? parseWith(spec.body, typeof event.body === 'string' ? undefined : event.body, 'body') : undefined,
      query: spec.query ? parseWith(spec.query, event.queryStringParameters ?? {}, 'query') : (event.queryStringParameters ?? {}),
      params: spec.params ? parseWith(spec.params, event.pathParameters ?? {}, 'path') : (event.pathParameters ?? {}),
    };
  },
});
