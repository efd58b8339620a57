import { afterAll } from 'vitest';
import { CIRCUITS } from '../../../circuits/catalogue.ts';
import { terminateCurve } from '../../../circuits/ceremony/snarkjs.ts';
import { describeCommittedKeys } from './setup-keys.ts';

afterAll(async () => terminateCurve());

// The large keys (over 4,000 constraints); ceremony.test.ts checks the others.
describeCommittedKeys(['membership', 'membership_scoped', 'withdraw']);

// Every circuit of the catalogue is checked by one of the two files.
const checked = ['membership', 'membership_scoped', 'withdraw', 'password', 'preimage', 'range', 'range_scoped', 'preimage_scoped'];
if (CIRCUITS.some((c) => !checked.includes(c.name))) throw new Error('a circuit of circuits/catalogue.ts is in neither key check');
