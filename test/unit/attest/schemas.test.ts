import { describe, expect, it } from 'vitest';
import { scopeSignal } from '#lib/attest/fields.ts';
import { checkClaimsShape, checkSignals, describeSchema, getSchema, SCHEMAS } from '#lib/attest/schemas.ts';
import { AppError } from '#lib/errors.ts';

/** Schema-bound signals, without HTTP or proofs (the API test proves with real circuits). */
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? `${e.code}: ${e.message}` : String(e);
  }
  return 'no error';
};

describe('attestation schemas', () => {
  const age = getSchema('age-over-18');
  const scope = scopeSignal('age-over-18', 'default').toString();

  it('age-over-18 takes min 18 and max 150 from the schema, the commitment into the claims', () => {
    const out = checkSignals(age, ['111', '222', '18', '150', scope], 'default');
    expect(out).toEqual({ claims: { commitment: '111', min: '18', max: '150' }, nullifier: '222', scopeSignal: BigInt(scope) });
    expect(codeOf(() => checkSignals(age, ['111', '222', '17', '150', scope], 'default'))).toMatch(/^SCHEMA_MISMATCH: publicSignals: min must be 18/);
    expect(codeOf(() => checkSignals(age, ['111', '222', '18', '151', scope], 'default'))).toMatch(/^SCHEMA_MISMATCH: publicSignals: max must be 150/);
    expect(codeOf(() => checkSignals(age, ['111', '222', '18', '150', scope], 'other'))).toMatch(/^SCHEMA_MISMATCH: publicSignals: scope/);
    expect(codeOf(() => checkSignals(age, ['111', '222', '18', '150'], 'default'))).toMatch(/^SCHEMA_MISMATCH: publicSignals: .* 5 public signals, got 4/);
    expect(codeOf(() => checkSignals(age, ['111', '222', '018', '150', scope], 'default'))).toMatch(/^SCHEMA_MISMATCH/);
  });

  it('the scope signal of one schema is refused by another', () => {
    const range = getSchema('range');
    expect(codeOf(() => checkSignals(range, ['1', '2', '3', '4', scope], 'default'))).toMatch(/^SCHEMA_MISMATCH: publicSignals: scope/);
  });

  it('describes every schema with its circuit key hash and one source per public signal', () => {
    for (const s of SCHEMAS) {
      const d = describeSchema(s);
      expect(d.vkHash).toMatch(/^[0-9a-f]{64}$/);
      expect(d.publicSignals.every((p) => typeof p.source === 'string')).toBe(true);
      expect(d.publicSignals.filter((p) => p.source === 'nullifier')).toHaveLength(1);
    }
    expect(checkClaimsShape(age, { commitment: '1', min: '18', max: '150' })).toBe(true);
    expect(checkClaimsShape(age, { commitment: '1', min: '18' })).toBe(false);
    expect(codeOf(() => getSchema('nope'))).toMatch(/^INVALID_INPUT/);
  });
});
