/** The Pedersen route: circomlibjs's Pedersen hash only. */
import * as z from 'zod';
import { hashPedersen as run, PEDERSEN_MAX_BYTES } from '../pedersen.ts';
import { body, post } from './route.ts';

const schema = body({
  input: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .max(2 + 2 * PEDERSEN_MAX_BYTES, { error: `must be at most ${PEDERSEN_MAX_BYTES} bytes` }),
  encoding: z.enum(['utf8', 'hex'], { error: 'must be "utf8" or "hex"' }).optional(),
});

export const hashPedersen = post('hash/pedersen', schema, run);
