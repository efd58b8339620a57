// The security figures come from one function (securityLevel in params.ts); docs/stark.md's table is
// its securityTable() output, and this test holds both to the arithmetic and to each other.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PARAMS, securityLevel, securityTable, deriveShape, provenTerms, type StarkParams } from '../../../lib/stark/params.ts';
import { SECURITY } from '../../../lib/stark/index.ts';

describe('security level', () => {
  it('the shipped parameters reach ≥ 100 proven bits (and 128 conjectured)', () => {
    const s = securityLevel(DEFAULT_PARAMS);
    const shape = deriveShape(DEFAULT_PARAMS);
    // Recomputed by hand: queries · log2(blowup) + grinding; 3 · 64 − log2(LDE size); SHA-256's 128.
    expect(s.queryBits).toBe(DEFAULT_PARAMS.queries * Math.log2(DEFAULT_PARAMS.blowup) + DEFAULT_PARAMS.grindingBits);
    expect(s.fieldBits).toBe(192 - Math.log2(shape.ldeSize));
    expect(s.conjecturedBits).toBe(Math.floor(Math.min(s.queryBits, s.fieldBits, 128)));
    expect(s.conjecturedBits).toBe(128);
    expect(s.provenBits).toBeGreaterThanOrEqual(100);
    expect(s.provenBits).toBeLessThan(s.conjecturedBits);
    expect(SECURITY.conjecturedBits).toBe(s.conjecturedBits);
    expect(SECURITY.provenBits).toBe(s.provenBits);
    expect(SECURITY.queries).toBe(DEFAULT_PARAMS.queries);
    expect(SECURITY.traceLength).toBe(DEFAULT_PARAMS.traceLength);
  });

  it('the proven bound, recomputed by hand at its optimal m: the query phase decides it', () => {
    const { queries: q, blowup, grindingBits: g, traceLength: n } = DEFAULT_PARAMS;
    const s = securityLevel(DEFAULT_PARAMS);
    // m is capped where the slackness of the DEEP step stays positive (h = n, 2 openings).
    const mMax = Math.ceil(1 / (2 * (Math.sqrt((n + 2) / n) - 1)));
    expect(s.proximityParameter).toBeGreaterThanOrEqual(3);
    expect(s.proximityParameter).toBeLessThanOrEqual(mMax);
    const m = s.proximityParameter;
    const D = n * blowup;
    const rho = 1 / blowup;
    // Query phase: ((1 + 1/2m) · sqrt(rho))^q · 2^-g.
    const queryTerm = q * Math.log2((1 + 1 / (2 * m)) * Math.sqrt(rho)) - g;
    // The list size is m / (rho − 2m/D), and the DEEP term carries its square.
    const l = m / (rho - (2 * m) / D);
    const deepTerm = 2 * Math.log2(l) + Math.log2(7 * (n + 1) + n - 1) - 192;
    const t = provenTerms(DEFAULT_PARAMS, m);
    expect(t.query).toBeCloseTo(queryTerm, 9);
    expect(t.deep).toBeCloseTo(deepTerm, 9);
    expect(t.ali).toBeCloseTo(Math.log2(l) - 192, 9);
    // Every other term is far below the query term, so the total is the query term to within a bit.
    for (const other of [t.ali, t.deep, t.friCommit]) expect(other).toBeLessThan(queryTerm - 10);
    expect(s.provenBits).toBe(Math.floor(-Math.log2(2 ** t.ali + 2 ** t.deep + 2 ** t.friCommit + 2 ** t.query)));
    expect(Math.abs(s.provenBits + queryTerm)).toBeLessThanOrEqual(1);
  });

  it('responds to the parameters the way the bounds say', () => {
    const base: StarkParams = { ...DEFAULT_PARAMS, queries: 20 };
    const a = securityLevel(base);
    const perQuery = Math.log2(DEFAULT_PARAMS.blowup);
    expect(securityLevel({ ...base, queries: 21 }).queryBits).toBe(a.queryBits + perQuery);
    expect(securityLevel({ ...base, grindingBits: 20 }).conjecturedBits).toBe(a.conjecturedBits + 4);
    expect(securityLevel({ ...base, blowup: 16 }).conjecturedBits).toBeGreaterThan(a.conjecturedBits);
    // The proven figure gains just under log2(1/sqrt(rho)) = log2(blowup)/2 bits per query.
    const more = securityLevel({ ...base, queries: 24 });
    expect(more.provenBits - a.provenBits).toBeGreaterThanOrEqual(Math.floor(4 * (perQuery / 2) - 1));
    expect(more.provenBits - a.provenBits).toBeLessThanOrEqual(Math.ceil(4 * (perQuery / 2)));
    // Zero knowledge bounds the queries: 4q + 6 random rows are needed (248 at trace length 256, 120 at 128).
    expect(() => deriveShape({ ...DEFAULT_PARAMS, queries: 61 })).toThrow(/zero knowledge/);
    expect(() => deriveShape({ ...DEFAULT_PARAMS, traceLength: 128, queries: 29 })).toThrow(/zero knowledge/);
    // Version 2.0's parameters (128 rows, blowup 16, 28 queries, 16 grinding bits): 128 conjectured, 71 proven.
    const v20 = securityLevel({ ...DEFAULT_PARAMS, traceLength: 128, blowup: 16, queries: 28 });
    expect([v20.conjecturedBits, v20.provenBits]).toEqual([128, 71]);
    // The alternative of raising the queries at blowup 16 (44 on a 256-row trace): 103 proven bits.
    expect(securityLevel({ ...DEFAULT_PARAMS, blowup: 16, queries: 44 }).provenBits).toBe(103);
    // Version 1's parameters (blowup 8, 27 queries, 16 grinding bits) give 97 conjectured bits.
    expect(securityLevel({ ...DEFAULT_PARAMS, traceLength: 128, blowup: 8, queries: 27 }).conjecturedBits).toBe(97);
  });

  it('docs/stark.md shows exactly securityTable(), and its prose states the same figures', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'stark.md'), 'utf8');
    const table = securityTable();
    const s = securityLevel(DEFAULT_PARAMS);
    expect(table).toContain(`**${s.conjecturedBits} bits**`);
    expect(table).toContain(`**${s.provenBits} bits**`);
    expect(readme).toContain(table);
    const section = readme.slice(readme.indexOf('### Security (shipped parameters)'), readme.indexOf('### Zero knowledge'));
    const prose = section.replace(/\s+/g, ' ');
    expect(prose).toContain(`the query phase gives **${s.provenBits} bits**`);
    expect(prose).toContain(
      `min(${DEFAULT_PARAMS.queries}·${Math.log2(DEFAULT_PARAMS.blowup)} + ${DEFAULT_PARAMS.grindingBits}, 192 − ${Math.log2(deriveShape(DEFAULT_PARAMS).ldeSize)}, 128) = **${s.conjecturedBits} bits**`,
    );
    expect(prose).toContain(`best m = ${s.proximityParameter}`);
  });
});
