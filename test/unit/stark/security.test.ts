// The security figures come from one function (securityLevel in params.ts); the README's table is
// its securityTable() output, and this test holds both to the arithmetic and to each other.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PARAMS, securityLevel, securityTable, deriveShape, type StarkParams } from '../../../lib/stark/params.ts';
import { SECURITY } from '../../../lib/stark/index.ts';

describe('security level', () => {
  it('the shipped parameters reach ≥ 100 conjectured bits, with the stated proven figure below it', () => {
    const s = securityLevel(DEFAULT_PARAMS);
    const shape = deriveShape(DEFAULT_PARAMS);
    // Recomputed by hand: queries · log2(blowup) + grinding; 3 · 64 − log2(LDE size); SHA-256's 128.
    expect(s.queryBits).toBe(DEFAULT_PARAMS.queries * Math.log2(DEFAULT_PARAMS.blowup) + DEFAULT_PARAMS.grindingBits);
    expect(s.fieldBits).toBe(192 - Math.log2(shape.ldeSize));
    expect(s.conjecturedBits).toBe(Math.floor(Math.min(s.queryBits, s.fieldBits, 128)));
    expect(s.conjecturedBits).toBeGreaterThanOrEqual(100);
    expect(s.provenBits).toBeGreaterThan(0);
    expect(s.provenBits).toBeLessThan(s.conjecturedBits);
    expect(SECURITY.conjecturedBits).toBe(s.conjecturedBits);
    expect(SECURITY.provenBits).toBe(s.provenBits);
  });

  it('responds to the parameters the way the bounds say', () => {
    const base: StarkParams = { ...DEFAULT_PARAMS, queries: 20 };
    const a = securityLevel(base);
    expect(securityLevel({ ...base, queries: 21 }).queryBits).toBe(a.queryBits + 4);
    expect(securityLevel({ ...base, grindingBits: 20 }).conjecturedBits).toBe(a.conjecturedBits + 4);
    expect(securityLevel({ ...base, blowup: 8 }).conjecturedBits).toBeLessThan(a.conjecturedBits);
    // The proven figure gains about log2(1/sqrt(rho)) = 2 bits per query at blowup 16.
    const more = securityLevel({ ...base, queries: 24 });
    expect(more.provenBits - a.provenBits).toBeGreaterThanOrEqual(7);
    expect(more.provenBits - a.provenBits).toBeLessThanOrEqual(8);
    // Zero knowledge bounds the queries: 4q + 6 random rows (of 120) are needed at trace length 128.
    expect(() => deriveShape({ ...DEFAULT_PARAMS, queries: 29 })).toThrow(/zero knowledge/);
    expect(deriveShape({ ...DEFAULT_PARAMS, queries: 29, traceLength: 256 }).n).toBe(256);
    // The old version's parameters (blowup 8, 27 queries, 16 grinding bits) give 97 conjectured bits.
    expect(securityLevel({ ...DEFAULT_PARAMS, blowup: 8, queries: 27 }).conjecturedBits).toBe(97);
  });

  it('the README shows exactly securityTable()', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', '..', 'README.md'), 'utf8');
    const table = securityTable();
    expect(table).toContain(`**${securityLevel(DEFAULT_PARAMS).conjecturedBits} bits**`);
    expect(readme).toContain(table);
  });
});
