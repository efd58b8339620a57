/** The Baby JubJub routes: circomlibjs's Baby JubJub only. */
import * as bj from '../babyjub.ts';
import { decimalString, pointSchema } from '../decimal.ts';
import { body, get, post } from './route.ts';

export const ecBase = get('ec/base', bj.ecBase);
export const ecMulbase = post('ec/mulbase', body({ scalar: decimalString }), bj.ecMulBase);
export const ecAdd = post('ec/add', body({ p1: pointSchema, p2: pointSchema }), bj.ecAdd);
export const ecMul = post('ec/mul', body({ point: pointSchema, scalar: decimalString }), bj.ecMul);
export const ecIsoncurve = post('ec/isoncurve', body({ x: decimalString, y: decimalString }), bj.ecIsOnCurve);
export const ecParams = get('ec/params', bj.ecParams);
