/**
 * The ZK toolkit's route table (the contract's cryptographic primitives, without the Groth16
 * `proof/*` routes), assembled from one module per primitive (./toolkit/*.ts). A handler imports
 * only its primitive's module, so its bundle carries only that primitive:
 *
 *   export const handler = endpoint(route, { body: fieldAdd.schema }, (req) => fieldAdd.run(req.body));
 *
 * This module imports them all: for tests, scripts and whatever lists the routes.
 */
import { parseWith } from '#lib/http/validation.ts';
import { ecAdd, ecBase, ecIsoncurve, ecMul, ecMulbase, ecParams } from './toolkit/ec.ts';
import { fieldAdd, fieldDiv, fieldInv, fieldMul, fieldPow, fieldPrime, fieldRandom, fieldSqrt, fieldSub } from './toolkit/field.ts';
import { hashMimc } from './toolkit/mimc.ts';
import { hashPedersen } from './toolkit/pedersen.ts';
import { hashPoseidon } from './toolkit/poseidon.ts';
import { shamirCombine, shamirSplit } from './toolkit/shamir.ts';

export { TOOLKIT_PREFIX, type GetRoute, type PostRoute } from './toolkit/route.ts';

export const toolkit = {
  hashPoseidon,
  hashPedersen,
  hashMimc,
  fieldAdd,
  fieldSub,
  fieldMul,
  fieldDiv,
  fieldInv,
  fieldPow,
  fieldSqrt,
  fieldRandom,
  fieldPrime,
  ecBase,
  ecMulbase,
  ecAdd,
  ecMul,
  ecIsoncurve,
  ecParams,
  shamirSplit,
  shamirCombine,
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
