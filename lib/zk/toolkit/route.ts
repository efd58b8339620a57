/**
 * What a toolkit route is (the /api/zk-toolkit rows of functions/routes.ts): its handler module name, method,
 * path, zod body schema and `run`, which takes the validated body and returns the response's
 * `data`. The schemas check shape and format (→ 400 INVALID_INPUT naming the field); `run`
 * checks ranges and semantics and throws AppErrors (FIELD_OVERFLOW, NOT_ON_CURVE,
 * INVALID_SHARES, INVALID_INPUT for a zero divisor, a non-residue, an over-long Pedersen input...).
 */
import * as z from 'zod';

export const TOOLKIT_PREFIX = '/api/zk-toolkit';

export interface PostRoute<S extends z.ZodType, D> {
  /** Handler module name: functions/zk-toolkit/<name>.ts */
  readonly name: string;
  readonly method: 'POST';
  readonly path: string;
  readonly schema: S;
  run(body: z.infer<S>): Promise<D>;
}

export interface GetRoute<D> {
  readonly name: string;
  readonly method: 'GET';
  readonly path: string;
  /** GET routes take no body. */
  readonly schema?: undefined;
  run(): Promise<D>;
}

export const post = <S extends z.ZodType, D>(sub: string, schema: S, fn: (body: z.infer<S>) => D | Promise<D>): PostRoute<S, D> => ({
  name: sub.replace('/', '-'),
  method: 'POST',
  path: `${TOOLKIT_PREFIX}/${sub}`,
  schema,
  run: async (body) => fn(body),
});

export const get = <D>(sub: string, fn: () => D | Promise<D>): GetRoute<D> => ({
  name: sub.replace('/', '-'),
  method: 'GET',
  path: `${TOOLKIT_PREFIX}/${sub}`,
  run: async () => fn(),
});

const bodyError = { error: 'must be a JSON object' };
/** A request body: a JSON object of these fields. */
export const body = <T extends z.core.$ZodLooseShape>(shape: T) => z.object(shape, bodyError);
