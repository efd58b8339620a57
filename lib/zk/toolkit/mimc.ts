/** The MiMC7 route: circomlibjs's MiMC7 only. */
import { decimalString } from '../decimal.ts';
import { hashMimc as run } from '../mimc.ts';
import { body, post } from './route.ts';

export const hashMimc = post('hash/mimc', body({ input: decimalString, key: decimalString.optional() }), run);
