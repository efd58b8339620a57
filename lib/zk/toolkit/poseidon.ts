/** The Poseidon route: circomlibjs's Poseidon only. */
import * as z from 'zod';
import { decimalString } from '../decimal.ts';
import { hashPoseidon as run, POSEIDON_MAX_INPUTS } from '../poseidon.ts';
import { body, post } from './route.ts';

const inputsMessage = `must be an array of 1 to ${POSEIDON_MAX_INPUTS} decimal strings`;

const schema = body({
  input: decimalString.optional(),
  inputs: z.array(decimalString, { error: inputsMessage }).min(1, { error: inputsMessage }).max(POSEIDON_MAX_INPUTS, { error: inputsMessage }).optional(),
}).refine((v) => (v.input === undefined) !== (v.inputs === undefined), {
  path: ['input'],
  error: `send exactly one of input (one element) or inputs (an array of 1 to ${POSEIDON_MAX_INPUTS})`,
});

export const hashPoseidon = post('hash/poseidon', schema, run);
