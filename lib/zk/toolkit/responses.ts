import * as z from 'zod';
import { bytesResponse } from '#lib/openapi/responses.ts';

/** The toolkit routes' answers (the `data` inside `{success, data}`), for the OpenAPI document. */
const decimal = z.string().regex(/^[0-9]{1,78}$/);
const hash = z.string().regex(/^0x[0-9a-f]{64}$/);
const point = z.object({ x: decimal, y: decimal });
const result = z.object({ result: decimal });

export const toolkitAnswers = {
  hashPoseidon: z.union([
    z.object({ algorithm: z.literal('poseidon'), hash, input: decimal }),
    z.object({ algorithm: z.literal('poseidon'), hash, inputs: z.array(decimal) }),
  ]),
  hashMimc: z.object({ algorithm: z.literal('mimc7'), hash, input: decimal, key: decimal }),
  hashPedersen: z.object({ algorithm: z.literal('pedersen'), hash, point, encoding: z.enum(['utf8', 'hex']), bytes: z.number().int() }),
  fieldResult: result,
  fieldPrime: z.object({ result: decimal, prime: decimal }),
  point,
  isOnCurve: z.object({ onCurve: z.boolean(), inSubgroup: z.boolean() }),
  ecParams: z.object({ a: decimal, d: decimal, order: decimal, subOrder: decimal, cofactor: decimal, generator: point, base: point, prime: decimal }),
  shamirSplit: z.object({ shares: z.array(z.string().regex(/^[0-9]{1,3}:[0-9]{1,78}$/)), threshold: z.number().int(), total: z.number().int() }),
  shamirCombine: z.object({ secret: decimal }),
  proofGenerate: z.object({
    proof: z.object({
      pi_a: z.array(decimal),
      pi_b: z.array(z.array(decimal)),
      pi_c: z.array(decimal),
      protocol: z.literal('groth16'),
      curve: z.literal('bn128'),
    }),
    publicSignals: z.array(decimal),
  }),
  proofVerify: z.object({ valid: z.boolean() }),
  proofCircuits: z.object({
    defaultCircuit: z.string(),
    circuits: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        publicSignals: z.array(z.string()),
        privateInputs: z.array(z.string()),
        publicInputs: z.array(z.string()),
        inputs: z.array(z.looseObject({ name: z.string() })),
        constraints: z.number().int(),
        artifacts: z.record(z.enum(['wasm', 'zkey', 'vkey']), z.object({ url: z.string(), file: z.string(), bytes: z.number().int(), sha256: z.string() })),
      }),
    ),
  }),
  artifact: {
    200: bytesResponse(
      'application/octet-stream',
      'The artifact (wasm: application/wasm, zkey: application/octet-stream, vkey: application/json); ETag = its sha256, cacheable for a year.',
    ),
    304: bytesResponse('application/octet-stream', 'Not modified (`If-None-Match` matched the ETag).'),
  },
};
