import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as snarkjs from 'snarkjs';
import type { Curve, Groth16Proof } from 'snarkjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCircuits, artifactPath } from '#lib/zk/circuits.ts';
import { terminateCurves, verifyProof } from '#lib/zk/groth16.ts';
import { beaconDelta, inverse, seededAlphaBeta, seededDelta } from '../../support/seeded-ceremony.ts';

/**
 * The seeded ceremony's keys could be forged by anyone holding the repository (its secrets were
 * derived from public strings). This recomputes them as a forger would, shows the forgery works
 * against the old keys (kept as fixtures), and that it fails against every key shipped now.
 */
const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'seeded-ceremony-v1');
type VKey = { nPublic: number; vk_alpha_1: string[]; vk_beta_2: string[][]; vk_delta_2: string[][]; IC: string[][] };
const oldKey = (name: string): VKey => JSON.parse(readFileSync(join(FIXTURES, `${name}.vkey.json`), 'utf8'));
const shippedKey = (name: string): VKey => JSON.parse(readFileSync(artifactPath(name, 'vkey'), 'utf8'));

let curve: Curve;
beforeAll(async () => {
  curve = await snarkjs.curves.getCurveFromName('bn128');
});
afterAll(async () => terminateCurves());

const big = (xs: string[]) => xs.map(BigInt);
const g1 = (p: string[]) => curve.G1.fromObject(big(p.slice(0, 2)));
const affine = (p: Uint8Array) => curve.G1.toObject(curve.G1.toAffine(p)).map(String);
const sameG1 = (p: Uint8Array, q: string[]) => expect(affine(p).slice(0, 2)).toEqual(q.slice(0, 2));
const inG2 = (e: bigint) =>
  curve.G2.toObject(curve.G2.toAffine(curve.G2.timesScalar(curve.G2.g, e)))
    .slice(0, 2)
    .map((c) => (c as unknown as bigint[]).map(String));

/**
 * Groth16 forgery with δ known (snarkjs fixes γ to the generator): A = α, B = β and
 * C = −δ⁻¹·(IC₀ + Σ sᵢ·ICᵢ₊₁) satisfy e(A, B) = e(α, β)·e(IC, γ)·e(C, δ) for any signals s.
 */
function forge(vk: VKey, delta: bigint, signals: string[]): Groth16Proof {
  let ic = g1(vk.IC[0]!);
  signals.forEach((s, i) => (ic = curve.G1.add(ic, curve.G1.timesScalar(g1(vk.IC[i + 1]!), BigInt(s)))));
  const c = curve.G1.neg(curve.G1.timesScalar(ic, inverse(delta)));
  return {
    pi_a: [...vk.vk_alpha_1.slice(0, 2), '1'] as Groth16Proof['pi_a'],
    pi_b: [vk.vk_beta_2[0]!, vk.vk_beta_2[1]!, ['1', '0']] as Groth16Proof['pi_b'],
    pi_c: [...affine(c).slice(0, 2), '1'] as Groth16Proof['pi_c'],
    protocol: 'groth16',
    curve: 'bn128',
  };
}

const names = () => listCircuits().map((c) => c.name);
const someSignals = (n: number) => Array.from({ length: n }, (_, i) => String(17 + i));

describe('the seeded ceremony of before, recomputed from its public strings', () => {
  it('yields the old keys’ α, β and δ, and its forgeries verify against them', async () => {
    const { alpha, beta } = seededAlphaBeta();
    for (const name of names()) {
      const vk = oldKey(name);
      sameG1(curve.G1.timesScalar(curve.G1.g, alpha), vk.vk_alpha_1);
      expect(inG2(beta)).toEqual(vk.vk_beta_2.slice(0, 2));
      const delta = seededDelta(name);
      expect(inG2(delta), name).toEqual(vk.vk_delta_2.slice(0, 2));
      const signals = someSignals(vk.nPublic);
      expect(await snarkjs.groth16.verify(vk, signals, forge(vk, delta, signals)), name).toBe(true);
    }
  });

  it('forges nothing for the keys shipped now, for any circuit', async () => {
    for (const name of names()) {
      const vk = shippedKey(name);
      const signals = someSignals(vk.nPublic);
      // The forger's secrets against today's key, and today's own points with the old δ.
      expect(await verifyProof(name, forge(vk, seededDelta(name), signals), signals), name).toBe(false);
      expect(await verifyProof(name, forge(oldKey(name), seededDelta(name), signals.slice(0, oldKey(name).nPublic)), signals), name).toBe(false);
    }
  });

  it('the shipped keys’ δ is not the public beacon’s alone: the contributions’ secrets are in it', () => {
    for (const name of names()) {
      const transcript = JSON.parse(readFileSync(join(artifactPath(name, 'vkey'), '..', 'transcript.json'), 'utf8')) as {
        beacon: { hash: string; iterationsExp: number };
      };
      const beaconOnly = beaconDelta(transcript.beacon.hash, transcript.beacon.iterationsExp);
      expect(inG2(beaconOnly), name).not.toEqual(shippedKey(name).vk_delta_2.slice(0, 2));
    }
  });
});
