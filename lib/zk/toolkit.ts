/**
 * The ZK toolkit's route table (API.md "Cryptographic primitives", without the Groth16
 * `proof/*` routes): one entry per endpoint with its method, path, handler name, zod body schema
 * and `run`, which takes the validated body and returns the response's `data`. A handler is
 *
 *   export const handler = endpoint(route, { body: toolkit.fieldAdd.schema }, (req) => toolkit.fieldAdd.run(req.body));
 *
 * The schemas check shape and format (→ 400 INVALID_INPUT naming the field); `run` checks
 * ranges and semantics and throws AppErrors (FIELD_OVERFLOW, NOT_ON_CURVE, INVALID_SHARES,
 * INVALID_INPUT for a zero divisor, a non-residue, an over-long Pedersen input, ...).
 */
import { z } from 'zod';
import { parseWith } from '#lib/http/validation.ts';
import * as bj from './babyjub.ts';
import { decimalString, integerIn, pointSchema } from './decimal.ts';
import * as field from './field.ts';
import * as hashes from './hashes.ts';
import * as shamir from './shamir.ts';

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

const post = <S extends z.ZodType, D>(sub: string, schema: S, fn: (body: z.infer<S>) => D | Promise<D>): PostRoute<S, D> => ({
  name: sub.replace('/', '-'),
  method: 'POST',
  path: `${TOOLKIT_PREFIX}/${sub}`,
  schema,
  run: async (body) => fn(body),
});

const get = <D>(sub: string, fn: () => D | Promise<D>): GetRoute<D> => ({
  name: sub.replace('/', '-'),
  method: 'GET',
  path: `${TOOLKIT_PREFIX}/${sub}`,
  run: async () => fn(),
});

const bodyError = { error: 'must be a JSON object' };
const body = <T extends z.core.$ZodLooseShape>(shape: T) => z.object(shape, bodyError);

const abSchema = body({ a: decimalString, b: decimalString });
const aSchema = body({ a: decimalString });

const poseidonSchema = body({
  input: decimalString.optional(),
  inputs: z
    .array(decimalString, { error: `must be an array of 1 to ${hashes.POSEIDON_MAX_INPUTS} decimal strings` })
    .min(1, { error: `must be an array of 1 to ${hashes.POSEIDON_MAX_INPUTS} decimal strings` })
    .max(hashes.POSEIDON_MAX_INPUTS, { error: `must be an array of 1 to ${hashes.POSEIDON_MAX_INPUTS} decimal strings` })
    .optional(),
}).refine((v) => (v.input === undefined) !== (v.inputs === undefined), {
  path: ['input'],
  error: `send exactly one of input (one element) or inputs (an array of 1 to ${hashes.POSEIDON_MAX_INPUTS})`,
});

const pedersenSchema = body({
  input: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .max(2 + 2 * hashes.PEDERSEN_MAX_BYTES, { error: `must be at most ${hashes.PEDERSEN_MAX_BYTES} bytes` }),
  encoding: z.enum(['utf8', 'hex'], { error: 'must be "utf8" or "hex"' }).optional(),
});

const mimcSchema = body({ input: decimalString, key: decimalString.optional() });

const splitSchema = body({
  secret: decimalString,
  threshold: integerIn(shamir.MIN_THRESHOLD, shamir.MAX_SHARES),
  shares: integerIn(shamir.MIN_THRESHOLD, shamir.MAX_SHARES),
}).refine((v) => v.shares >= v.threshold, { path: ['shares'], error: 'must be at least threshold' });

// Elements are checked by `run` so that a malformed share is INVALID_SHARES, as the issue asks.
const combineSchema = body({ shares: z.array(z.unknown(), { error: (i) => (i.input === undefined ? 'is required' : 'must be an array of share strings') }) });

export const toolkit = {
  hashPoseidon: post('hash/poseidon', poseidonSchema, hashes.hashPoseidon),
  hashPedersen: post('hash/pedersen', pedersenSchema, hashes.hashPedersen),
  hashMimc: post('hash/mimc', mimcSchema, hashes.hashMimc),

  fieldAdd: post('field/add', abSchema, field.fieldAdd),
  fieldSub: post('field/sub', abSchema, field.fieldSub),
  fieldMul: post('field/mul', abSchema, field.fieldMul),
  fieldDiv: post('field/div', abSchema, field.fieldDiv),
  fieldInv: post('field/inv', aSchema, field.fieldInv),
  fieldPow: post('field/pow', body({ base: decimalString, exp: decimalString }), field.fieldPow),
  fieldSqrt: post('field/sqrt', aSchema, field.fieldSqrt),
  fieldRandom: get('field/random', field.fieldRandom),
  fieldPrime: get('field/prime', field.fieldPrime),

  ecBase: get('ec/base', bj.ecBase),
  ecMulbase: post('ec/mulbase', body({ scalar: decimalString }), bj.ecMulBase),
  ecAdd: post('ec/add', body({ p1: pointSchema, p2: pointSchema }), bj.ecAdd),
  ecMul: post('ec/mul', body({ point: pointSchema, scalar: decimalString }), bj.ecMul),
  ecIsoncurve: post('ec/isoncurve', body({ x: decimalString, y: decimalString }), bj.ecIsOnCurve),
  ecParams: get('ec/params', bj.ecParams),

  shamirSplit: post('shamir/split', splitSchema, shamir.shamirSplit),
  shamirCombine: post('shamir/combine', combineSchema, shamir.shamirCombine),
} as const;

export type Toolkit = typeof toolkit;
export type ToolkitRoute = Toolkit[keyof Toolkit];
export const toolkitRoutes: readonly ToolkitRoute[] = Object.values(toolkit);

/**
 * Validate and run in one call, with the HTTP layer's message format (`path: message`, the
 * path dot-joined, `body` for the root). For tests, scripts and the local runtime; the Lambda
 * handlers go through endpoint(), which does the same.
 */
export async function invoke(route: ToolkitRoute, raw?: unknown): Promise<unknown> {
  if (route.method === 'GET') return route.run();
  return (route.run as (b: unknown) => Promise<unknown>)(parseWith(route.schema, raw, 'body'));
}

