// Every byte of a serialized proof is load-bearing.
//
// Cost: at the shipped parameters a proof is ~29 KB and one verification takes ~10-30 ms wall on
// the shared 2-core CI machine, so flipping every byte (~29k verifications) would take many
// minutes. We split the requirement in two:
//  1. EVERY byte of a proof at SMALL_PARAMS (~4.5 KB) is flipped in turn and must be rejected.
//     These parameters run the same code paths and produce every section of the format (header,
//     roots, OOD frame, remainder, nonce, trace/composition rows with their leaf salts and
//     multi-proofs, and two committed FRI layers with their multi-proofs), so the exhaustive pass
//     covers each kind of byte the shipped proof contains.
//  2. At the SHIPPED parameters, every header byte (version, all roots, OOD frame, remainder,
//     nonce) plus a deterministic, evenly spread sample of each body section, ≥ 2000 positions in
//     all, covering every section, must be rejected.
import { describe, it, expect } from 'vitest';
import { verifyStatement } from '../../../lib/stark/verifier.ts';
import { DEFAULT_PARAMS } from '../../../lib/stark/params.ts';
import { SMALL_PARAMS, proveRandom, proofSections, flipped } from './helpers.ts';

describe('byte flips', () => {
  it('every byte of a small-parameter proof, flipped in turn, is rejected', () => {
    const { proof, felts } = proveRandom(SMALL_PARAMS);
    const sections = proofSections(proof, felts, SMALL_PARAMS);
    expect(sections.map((s) => s.name)).toEqual([
      'version',
      'traceRoot',
      'compRoot',
      'friRoots',
      'oodTraceZ',
      'oodTraceGz',
      'oodComp',
      'remainder',
      'nonce',
      'traceRows',
      'traceNodes',
      'compRows',
      'compNodes',
      'fri1Pairs',
      'fri1Nodes',
      'fri2Pairs',
      'fri2Nodes',
    ]);
    const accepted: number[] = [];
    for (let i = 0; i < proof.length; i++) {
      if (verifyStatement(flipped(proof, i), felts, SMALL_PARAMS).ok) accepted.push(i);
    }
    expect(accepted).toEqual([]);
  }, 180_000);

  it('≥ 2000 positions over every section of a shipped-parameter proof are rejected', () => {
    const { proof, felts } = proveRandom(DEFAULT_PARAMS);
    const sections = proofSections(proof, felts, DEFAULT_PARAMS);
    const header = sections.filter((s) => s.start < sections.find((x) => x.name === 'traceRows')!.start);
    const body = sections.filter((s) => !header.includes(s));
    const positions: number[] = [];
    for (const s of header) for (let i = s.start; i < s.end; i++) positions.push(i);
    const bodyBytes = body.reduce((a, s) => a + (s.end - s.start), 0);
    const budget = 2000 - positions.length + 200;
    for (const s of body) {
      const len = s.end - s.start;
      const want = Math.min(len, Math.max(48, Math.round((budget * len) / bodyBytes)));
      // Evenly spaced, first and last byte included, offset varied so all byte lanes of felts/digests are hit.
      for (let k = 0; k < want; k++) positions.push(s.start + Math.min(len - 1, Math.floor((k * len) / want) + (k % 7)));
    }
    const unique = [...new Set(positions)].sort((a, b) => a - b);
    expect(unique.length).toBeGreaterThanOrEqual(2000);
    for (const s of sections) expect(unique.some((i) => i >= s.start && i < s.end)).toBe(true);
    const accepted = unique.filter((i) => verifyStatement(flipped(proof, i), felts, DEFAULT_PARAMS).ok);
    expect(accepted).toEqual([]);
  }, 180_000);
});
