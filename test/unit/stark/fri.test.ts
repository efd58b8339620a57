import { describe, it, expect } from 'vitest';
import { randomFelt } from '../../../lib/stark/field.ts';
import { type Fp3 } from '../../../lib/stark/ext.ts';
import { cosetEvaluate } from '../../../lib/stark/poly.ts';
import { Transcript } from '../../../lib/stark/transcript.ts';
import { friCommit, friOpen, friReplay, friVerify, type FriConfig } from '../../../lib/stark/fri.ts';
import { proveStatement } from '../../../lib/stark/prover.ts';
import { verifyStatement } from '../../../lib/stark/verifier.ts';
import { DEFAULT_PARAMS } from '../../../lib/stark/params.ts';
import { SMALL_PARAMS, randomStatement } from './helpers.ts';
import { forgeOod } from './adversary.ts';

const cfg: FriConfig = { domainSize: 512, offset: 7n, degreeBound: 64, remainderDegree: 4 };
const QUERIES = 20;

/** Evaluations over the coset of a random F_p^3-valued polynomial with `degree + 1` coefficients. */
function randomEvals(degree: number): Fp3[] {
  const [c0, c1, c2] = [0, 1, 2].map(() =>
    cosetEvaluate(
      Array.from({ length: degree + 1 }, () => randomFelt()),
      cfg.offset,
      cfg.domainSize,
    ),
  );
  return c0.map((v, i) => [v, c1[i], c2[i]] as Fp3);
}

/** Honest FRI prover on `evals` followed by the verifier, with layer-0 values read from `evals`. */
function runFri(evals: Fp3[]): string | null {
  const pt = new Transcript('fri-test');
  const state = friCommit(evals, cfg, pt);
  const positions = pt.drawDistinctIndices(QUERIES, cfg.domainSize / 2).sort((a, b) => a - b);
  const openings = friOpen(state, positions, cfg);
  const roots = state.layers.map((l) => l.tree.root);

  const vt = new Transcript('fri-test');
  const betas = friReplay(cfg, roots, state.remainder, vt);
  const vpos = vt.drawDistinctIndices(QUERIES, cfg.domainSize / 2).sort((a, b) => a - b);
  expect(vpos).toEqual(positions);
  const layer0 = positions.map((p) => [evals[p], evals[p + cfg.domainSize / 2]] as const);
  return friVerify(cfg, roots, betas, state.remainder, positions, layer0, openings);
}

describe('FRI low-degree test', () => {
  it('accepts polynomials below the degree bound', () => {
    for (const d of [0, 5, 63]) expect(runFri(randomEvals(d))).toBeNull();
  });
  it('rejects polynomials of degree at or above the bound (layers made honestly for them)', () => {
    for (const d of [64, 65, 100, 511]) expect(runFri(randomEvals(d))).toBe('fri-remainder');
  });
  it('rejects a low-degree codeword with one changed layer-1 value at a queried leaf', () => {
    const evals = randomEvals(40);
    const pt = new Transcript('fri-test');
    const state = friCommit(evals, cfg, pt);
    const positions = pt.drawDistinctIndices(QUERIES, 256).sort((a, b) => a - b);
    const openings = friOpen(state, positions, cfg);
    const p0 = openings[0].pairs[0];
    openings[0].pairs[0] = [[(p0[0][0] + 1n) % 0xffffffff00000001n, p0[0][1], p0[0][2]], p0[1]];
    const vt = new Transcript('fri-test');
    const roots = state.layers.map((l) => l.tree.root);
    const betas = friReplay(cfg, roots, state.remainder, vt);
    vt.drawDistinctIndices(QUERIES, 256);
    const layer0 = positions.map((p) => [evals[p], evals[p + 256]] as const);
    expect(friVerify(cfg, roots, betas, state.remainder, positions, layer0, openings)).toBe('fri-merkle');
  });
});

describe('STARK with FRI layers made for a high-degree polynomial', () => {
  // The test-only adversary (adversary.ts) proves a false statement (wrong key), forges the out-of-domain
  // segment value so the OOD relation holds, and runs FRI honestly on the resulting high-degree
  // DEEP polynomial. Everything up to FRI is consistent; FRI must be what rejects it.
  it('is rejected by FRI at small and at shipped parameters', () => {
    for (const params of [SMALL_PARAMS, DEFAULT_PARAMS]) {
      const { sk, stmt, felts } = randomStatement();
      const wrongKey = [sk[0], sk[1], sk[2], (sk[3] + 1n) % 0xffffffff00000001n];
      expect(() => proveStatement(wrongKey, stmt, params)).toThrow(/does not match/);
      const forged = forgeOod(wrongKey, stmt, params);
      const r = verifyStatement(forged, felts, params);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toBe('fri-remainder');
    }
  });
});
