/** The Shamir routes: plain bigint arithmetic over the field, no circomlibjs. */
import * as z from 'zod';
import { decimalString, integerIn } from '../decimal.ts';
import * as shamir from '../shamir.ts';
import { body, post } from './route.ts';

const splitSchema = body({
  secret: decimalString,
  threshold: integerIn(shamir.MIN_THRESHOLD, shamir.MAX_SHARES),
  shares: integerIn(shamir.MIN_THRESHOLD, shamir.MAX_SHARES),
}).refine((v) => v.shares >= v.threshold, { path: ['shares'], error: 'must be at least threshold' });

// Elements are checked by `run` so that a malformed share is INVALID_SHARES, as the issue asks.
const combineSchema = body({ shares: z.array(z.unknown(), { error: (i) => (i.input === undefined ? 'is required' : 'must be an array of share strings') }) });

export const shamirSplit = post('shamir/split', splitSchema, shamir.shamirSplit);
export const shamirCombine = post('shamir/combine', combineSchema, shamir.shamirCombine);
