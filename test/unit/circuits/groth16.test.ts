import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPoseidon, type Poseidon } from 'circomlibjs';
import * as snarkjs from 'snarkjs';
import { AppError } from '#lib/errors.ts';
import { artifactPath } from '#lib/zk/circuits.ts';
import { generateProof, terminateCurves, verifyProof, type CircuitInputs, type ProofResult } from '#lib/zk/groth16.ts';
import { BN254_Q, BN254_R } from '#lib/zk/bn254.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const DEPTH = 20;

let poseidon: Poseidon;
const H = (...xs: bigint[]) => poseidon.F.toObject(poseidon(xs)).toString();

async function errorCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return `${e.code}: ${e.message}`;
    return `not an AppError: ${String(e)}`;
  }
  return 'resolved';
}

/** A membership witness for a sparse path, and the root it leads to (computed off-circuit). */
function membershipWitness(leaf: bigint, indexBits: number[]) {
  const pathElements = Array.from({ length: DEPTH }, (_, i) => BigInt(1000 + i * 7919));
  let node = leaf;
  for (let i = 0; i < DEPTH; i++) {
    node = BigInt(indexBits[i] ? H(pathElements[i], node) : H(node, pathElements[i]));
  }
  return {
    inputs: {
      leaf: leaf.toString(),
      pathElements: pathElements.map(String),
      pathIndices: indexBits.map(String),
    },
    root: node.toString(),
  };
}

const bits = Array.from({ length: DEPTH }, (_, i) => (0x5a5a5 >> i) & 1);

beforeAll(async () => {
  poseidon = await buildPoseidon();
});

afterAll(async () => {
  await terminateCurves();
});

describe('generateProof / verifyProof, valid inputs', () => {
  const cases: Array<{ circuit: string; inputs: () => CircuitInputs; signals: () => string[] }> = [
    {
      circuit: 'preimage',
      inputs: () => ({ secret: '123456789' }),
      signals: () => [H(123456789n)],
    },
    {
      circuit: 'password',
      inputs: () => ({ pw_lo: '11', pw_hi: String(2n ** 128n - 1n), salt: String(BN254_R - 1n) }),
      signals: () => [H(11n, 2n ** 128n - 1n, BN254_R - 1n)],
    },
    {
      circuit: 'range',
      inputs: () => ({ value: String(2n ** 64n - 1n), blinding: '99', min: '0', max: String(2n ** 64n - 1n) }),
      signals: () => [H(2n ** 64n - 1n, 99n), '0', String(2n ** 64n - 1n)],
    },
    {
      circuit: 'membership',
      inputs: () => membershipWitness(42n, bits).inputs,
      signals: () => [membershipWitness(42n, bits).root],
    },
  ];

  for (const c of cases) {
    it(`${c.circuit}: proves, the public signals are the expected values, and it verifies`, async () => {
      const { proof, publicSignals } = await generateProof(c.circuit, c.inputs());
      expect(proof.protocol).toBe('groth16');
      expect(proof.curve).toBe('bn128');
      expect(proof.pi_a).toHaveLength(3);
      expect(proof.pi_b).toHaveLength(3);
      expect(publicSignals).toEqual(c.signals());
      expect(await verifyProof(c.circuit, proof, publicSignals)).toBe(true);
      // Tampered public signal: well formed, does not verify.
      const tampered = [...publicSignals];
      tampered[0] = (BigInt(tampered[0]) + 1n).toString();
      expect(await verifyProof(c.circuit, proof, tampered)).toBe(false);
    });
  }

  it('a proof verifies only for its own circuit', async () => {
    const { proof, publicSignals } = await generateProof('preimage', { secret: '5' });
    expect(await verifyProof('password', proof, publicSignals)).toBe(false);
  });
});

describe('generateProof, invalid inputs', () => {
  const failing: Array<[string, string, CircuitInputs]> = [
    ['password half >= 2^128', 'password', { pw_lo: String(2n ** 128n), pw_hi: '1', salt: '1' }],
    ['range value below min', 'range', { value: '17', blinding: '1', min: '18', max: '120' }],
    ['range value above max', 'range', { value: '121', blinding: '1', min: '18', max: '120' }],
    ['range value >= 2^64', 'range', { value: String(2n ** 64n), blinding: '1', min: '0', max: String(2n ** 64n - 1n) }],
    ['range min > max', 'range', { value: '10', blinding: '1', min: '11', max: '9' }],
    ['membership index not a bit', 'membership', { ...membershipWitnessLazy(), pathIndices: ['2', ...Array(DEPTH - 1).fill('0')] }],
    ['missing input', 'preimage', {}],
    ['unknown input', 'preimage', { secret: '1', extra: '2' }],
    ['array where a scalar is expected', 'preimage', { secret: ['1'] }],
    ['wrong array length', 'membership', { leaf: '1', pathElements: ['1'], pathIndices: ['0'] }],
  ];
  for (const [label, circuit, inputs] of failing) {
    it(`${label} -> PROOF_FAILED`, async () => {
      const got = await errorCode(generateProof(circuit, inputs));
      expect(got).toMatch(/^PROOF_FAILED: /);
      expect(got).not.toMatch(/\n|\s+at\s/); // short, no stack
    });
  }

  it('a circom assertion is reported briefly', async () => {
    const got = await errorCode(generateProof('range', { value: '1', blinding: '1', min: '2', max: '3' }));
    expect(got).toMatch(/^PROOF_FAILED: inputs do not satisfy the range circuit/);
  });

  it('malformed values -> INVALID_INPUT, values >= r -> FIELD_OVERFLOW, unknown circuit -> INVALID_INPUT', async () => {
    expect(await errorCode(generateProof('preimage', { secret: '0x10' }))).toMatch(/^INVALID_INPUT/);
    expect(await errorCode(generateProof('preimage', { secret: '-1' }))).toMatch(/^INVALID_INPUT/);
    expect(await errorCode(generateProof('preimage', { secret: '' }))).toMatch(/^INVALID_INPUT/);
    expect(await errorCode(generateProof('preimage', { secret: 7 as never }))).toMatch(/^INVALID_INPUT/);
    expect(await errorCode(generateProof('preimage', null as never))).toMatch(/^INVALID_INPUT/);
    expect(await errorCode(generateProof('preimage', { secret: String(BN254_R) }))).toMatch(/^FIELD_OVERFLOW/);
    expect(await errorCode(generateProof('nope', { secret: '1' }))).toMatch(/^INVALID_INPUT: unknown circuit: nope/);
  });
});

// The invalid-input table is built at collection time, before beforeAll: a fixed fake path is enough
// there because the failure is the index, not the root.
function membershipWitnessLazy() {
  return { leaf: '1', pathElements: Array.from({ length: DEPTH }, (_, i) => String(i + 1)) };
}

describe('verifyProof, malformed proofs', () => {
  let good: ProofResult;
  beforeAll(async () => {
    good = await generateProof('preimage', { secret: '77' });
  });

  const mutate = (f: (p: any) => void) => {
    const p = structuredClone(good.proof) as any;
    f(p);
    return p;
  };

  it('accepts the proof with or without protocol/curve and the projective coordinate', async () => {
    const { pi_a, pi_b, pi_c } = good.proof;
    expect(await verifyProof('preimage', { pi_a, pi_b, pi_c }, good.publicSignals)).toBe(true);
    const affine = { pi_a: pi_a.slice(0, 2), pi_b: pi_b.slice(0, 2), pi_c: pi_c.slice(0, 2) };
    expect(await verifyProof('preimage', affine, good.publicSignals)).toBe(true);
  });

  it('a well-formed wrong proof is false', async () => {
    const other = await generateProof('preimage', { secret: '78' });
    expect(await verifyProof('preimage', other.proof, good.publicSignals)).toBe(false);
    // Valid curve points in the wrong places.
    const swapped = mutate((p) => {
      p.pi_c = good.proof.pi_a;
      p.pi_a = good.proof.pi_c;
    });
    expect(await verifyProof('preimage', swapped, good.publicSignals)).toBe(false);
  });

  const malformed: Array<[string, () => unknown, () => unknown]> = [
    ['not an object', () => 'proof', () => good.publicSignals],
    ['missing pi_b', () => mutate((p) => delete p.pi_b), () => good.publicSignals],
    ['pi_a too short', () => mutate((p) => (p.pi_a = [p.pi_a[0]])), () => good.publicSignals],
    ['hex coordinate', () => mutate((p) => (p.pi_a[0] = '0x1')), () => good.publicSignals],
    ['number coordinate', () => mutate((p) => (p.pi_a[0] = 1)), () => good.publicSignals],
    ['coordinate >= q', () => mutate((p) => (p.pi_a[0] = (BigInt(p.pi_a[0]) + BN254_Q).toString())), () => good.publicSignals],
    ['pi_a not on the curve', () => mutate((p) => (p.pi_a = ['1', '3', '1'])), () => good.publicSignals],
    ['pi_b not on the curve', () => mutate((p) => (p.pi_b[0][0] = '5')), () => good.publicSignals],
    ['point at infinity', () => mutate((p) => (p.pi_a = ['0', '1', '0'])), () => good.publicSignals],
    ['pi_a as (0, 0), the identity affine', () => mutate((p) => (p.pi_a = ['0', '0', '1'])), () => good.publicSignals],
    ['pi_c as (0, 0)', () => mutate((p) => (p.pi_c = ['0', '0'])), () => good.publicSignals],
    [
      'pi_b as (0, 0)',
      () =>
        mutate(
          (p) =>
            (p.pi_b = [
              ['0', '0'],
              ['0', '0'],
            ]),
        ),
      () => good.publicSignals,
    ],
    ['wrong protocol', () => mutate((p) => (p.protocol = 'plonk')), () => good.publicSignals],
    ['public signals not an array', () => good.proof, () => '1'],
    ['public signal not decimal', () => good.proof, () => ['abc']],
    ['too many public signals', () => good.proof, () => [...good.publicSignals, '1']],
    ['too few public signals', () => good.proof, () => []],
  ];
  for (const [label, proof, signals] of malformed) {
    it(`${label} -> INVALID_INPUT`, async () => {
      expect(await errorCode(verifyProof('preimage', proof(), signals()))).toMatch(/^INVALID_INPUT: /);
    });
  }

  it('a public signal >= r -> FIELD_OVERFLOW', async () => {
    const big = [(BigInt(good.publicSignals[0]) + BN254_R).toString()];
    expect(await errorCode(verifyProof('preimage', good.proof, big))).toMatch(/^FIELD_OVERFLOW: /);
  });
});

describe('interoperability with snarkjs', () => {
  it('a proof from generateProof passes the snarkjs CLI verifier', async () => {
    const { proof, publicSignals } = await generateProof('password', { pw_lo: '3', pw_hi: '4', salt: '5' });
    const dir = mkdtempSync(join(tmpdir(), 'shroud-groth16-'));
    try {
      copyFileSync(artifactPath('password', 'vkey'), join(dir, 'vkey.json'));
      writeFileSync(join(dir, 'public.json'), JSON.stringify(publicSignals));
      writeFileSync(join(dir, 'proof.json'), JSON.stringify(proof));
      const run = (pub: string) =>
        execFileSync('npx', ['snarkjs', 'groth16', 'verify', join(dir, 'vkey.json'), join(dir, pub), join(dir, 'proof.json')], {
          cwd: ROOT,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        });
      expect(run('public.json')).toMatch(/OK!/);
      writeFileSync(join(dir, 'bad.json'), JSON.stringify(['1']));
      expect(() => run('bad.json')).toThrow(); // the CLI exits non-zero on an invalid proof
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('verifyProof answers as snarkjs.groth16.verify does: valid proofs, tampered and permuted signals, other proofs, points moved, negated or doubled', async () => {
    const { readFileSync } = await import('node:fs');
    const range = await generateProof('range', { value: '40', blinding: '3', min: '18', max: '65' });
    const other = await generateProof('range', { value: '41', blinding: '3', min: '18', max: '65' });
    const preimage = await generateProof('preimage', { secret: '9' });
    const curve = await snarkjs.curves.getCurveFromName('bn128');
    // A G1 point of the proof moved by a group operation (negated, doubled): still on the curve.
    const moved = (xy: string[], f: (p: Uint8Array) => Uint8Array) => {
      const p = curve.G1.toAffine(f(curve.G1.fromObject(xy.slice(0, 2).map(BigInt))));
      return [...curve.G1.toObject(p).slice(0, 2).map(String), '1'];
    };
    const variants: Array<[string, string, any, string[]]> = [
      ['range: valid', 'range', range.proof, range.publicSignals],
      ['preimage: valid', 'preimage', preimage.proof, preimage.publicSignals],
      ...range.publicSignals.map((_, i): [string, string, any, string[]] => [
        'range: signal ' + i + ' + 1',
        'range',
        range.proof,
        range.publicSignals.map((s, j) => (j === i ? String(BigInt(s) + 1n) : s)),
      ]),
      ['range: signals permuted', 'range', range.proof, [range.publicSignals[0]!, range.publicSignals[2]!, range.publicSignals[1]!]],
      ['range: signal 0 as r - 1', 'range', range.proof, [String(BN254_R - 1n), ...range.publicSignals.slice(1)]],
      ['range: zero signals', 'range', range.proof, ['0', '0', '0']],
      ['range: another proof', 'range', other.proof, range.publicSignals],
      ['range: A and C swapped', 'range', { ...range.proof, pi_a: range.proof.pi_c, pi_c: range.proof.pi_a }, range.publicSignals],
      ['range: A negated', 'range', { ...range.proof, pi_a: moved(range.proof.pi_a, (p) => curve.G1.neg(p)) }, range.publicSignals],
      ['range: C doubled', 'range', { ...range.proof, pi_c: moved(range.proof.pi_c, (p) => curve.G1.double(p)) }, range.publicSignals],
      [
        'range: A and C negated',
        'range',
        { ...range.proof, pi_a: moved(range.proof.pi_a, (p) => curve.G1.neg(p)), pi_c: moved(range.proof.pi_c, (p) => curve.G1.neg(p)) },
        range.publicSignals,
      ],
      ['range: B of another proof', 'range', { ...range.proof, pi_b: other.proof.pi_b }, range.publicSignals],
      ['preimage proof for range', 'range', preimage.proof, [...preimage.publicSignals, '18', '65']],
    ];
    for (const [label, circuit, proof, signals] of variants) {
      const vkey = JSON.parse(readFileSync(artifactPath(circuit, 'vkey'), 'utf8'));
      const theirs = await snarkjs.groth16.verify(vkey, signals, proof);
      // The same verdict as snarkjs, and the one expected: only the untouched proofs hold.
      expect([label, await verifyProof(circuit, proof, signals)]).toEqual([label, theirs]);
      expect([label, theirs]).toEqual([label, label.endsWith(': valid')]);
    }
  });

  it('a proof from snarkjs.groth16.fullProve is accepted by verifyProof', async () => {
    const { proof, publicSignals } = await snarkjs.groth16.fullProve(
      { value: '30', blinding: '8', min: '18', max: '65' },
      artifactPath('range', 'wasm'),
      artifactPath('range', 'zkey'),
    );
    expect(publicSignals).toEqual([H(30n, 8n), '18', '65']);
    expect(await verifyProof('range', proof, publicSignals)).toBe(true);
  });
});
