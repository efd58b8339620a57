/** The BN254 scalar field routes: plain bigint arithmetic, no circomlibjs. */
import { decimalString } from '../decimal.ts';
import * as field from '../field.ts';
import { body, get, post } from './route.ts';

const abSchema = body({ a: decimalString, b: decimalString });
const aSchema = body({ a: decimalString });

export const fieldAdd = post('field/add', abSchema, field.fieldAdd);
export const fieldSub = post('field/sub', abSchema, field.fieldSub);
export const fieldMul = post('field/mul', abSchema, field.fieldMul);
export const fieldDiv = post('field/div', abSchema, field.fieldDiv);
export const fieldInv = post('field/inv', aSchema, field.fieldInv);
export const fieldPow = post('field/pow', body({ base: decimalString, exp: decimalString }), field.fieldPow);
export const fieldSqrt = post('field/sqrt', aSchema, field.fieldSqrt);
export const fieldRandom = get('field/random', field.fieldRandom);
export const fieldPrime = get('field/prime', field.fieldPrime);
