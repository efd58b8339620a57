import { describe, expect, it } from 'vitest';
import { BN254_R as R } from '#lib/zk/bn254.ts';
import { invoke, toolkit, toolkitRoutes, type ToolkitRoute } from '#lib/zk/toolkit.ts';
import { expectAppError } from './helpers.ts';

const DEC_RE = /^(0|[1-9][0-9]*)$/;
const B8 = {
  x: '5299619240641551281634865583518297030282874472190772894086521144482721001553',
  y: '16950150798460657717958625567821834550301663161624707787222815936182638968203',
};

describe('route table', () => {
  it('holds exactly the API.md zk-toolkit routes except proof/*', () => {
    // API.md, "Cryptographic primitives (/api/zk-toolkit)", minus the three Groth16 rows.
    const expected = [
      'POST hash/poseidon',
      'POST hash/pedersen',
      'POST hash/mimc',
      'POST field/add',
      'POST field/sub',
      'POST field/mul',
      'POST field/div',
      'POST field/inv',
      'POST field/pow',
      'POST field/sqrt',
      'GET field/random',
      'GET field/prime',
      'GET ec/base',
      'POST ec/mulbase',
      'POST ec/add',
      'POST ec/mul',
      'POST ec/isoncurve',
      'GET ec/params',
      'POST shamir/split',
      'POST shamir/combine',
    ].map((s) => s.replace(' ', ' /api/zk-toolkit/'));
    expect(toolkitRoutes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(expected.sort());
  });

  it('every POST route has a zod schema, no GET route has one; handler names are unique', () => {
    for (const r of toolkitRoutes) {
      if (r.method === 'POST') expect(typeof r.schema.safeParse, r.path).toBe('function');
      else expect(r.schema, r.path).toBeUndefined();
      expect(r.name).toBe(r.path.replace('/api/zk-toolkit/', '').replace('/', '-'));
    }
    expect(new Set(toolkitRoutes.map((r) => r.name)).size).toBe(toolkitRoutes.length);
  });
});

describe('each route answers its data object', () => {
  const cases: [ToolkitRoute, unknown, (d: any) => void][] = [
    [
      toolkit.hashPoseidon,
      { inputs: ['1', '2'] },
      (d) => expect(d).toEqual({ algorithm: 'poseidon', hash: '0x115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189a', inputs: ['1', '2'] }),
    ],
    [toolkit.hashPoseidon, { input: '1' }, (d) => expect(Object.keys(d).sort()).toEqual(['algorithm', 'hash', 'input'])],
    [
      toolkit.hashPedersen,
      { input: 'Hello' },
      (d) => {
        expect(d.hash).toBe('0x0e90d7d613ab8b5ea7f4f8bc537db6bb0fa2e5e97bbac1c1f609ef9e6a35fd8b');
        expect(d.point.x).toMatch(DEC_RE);
        expect(d).toMatchObject({ algorithm: 'pedersen', encoding: 'utf8', bytes: 5 });
      },
    ],
    [toolkit.hashMimc, { input: '12', key: '45' }, (d) => expect(d.hash).toBe('0x2ba7ebad3c6b6f5a20bdecba2333c63173ca1a5f2f49d958081d9fa7179c44e4')],
    [toolkit.hashMimc, { input: '12' }, (d) => expect(d).toMatchObject({ algorithm: 'mimc7', input: '12', key: '0' })],
    [toolkit.fieldAdd, { a: (R - 1n).toString(), b: '2' }, (d) => expect(d).toEqual({ result: '1' })],
    [toolkit.fieldSub, { a: '1', b: '2' }, (d) => expect(d).toEqual({ result: (R - 1n).toString() })],
    [toolkit.fieldMul, { a: '0003', b: '7' }, (d) => expect(d).toEqual({ result: '21' })],
    [toolkit.fieldDiv, { a: '1', b: '2' }, (d) => expect(d).toEqual({ result: ((R + 1n) / 2n).toString() })],
    [toolkit.fieldInv, { a: '2' }, (d) => expect(d).toEqual({ result: ((R + 1n) / 2n).toString() })],
    [toolkit.fieldPow, { base: '2', exp: '10' }, (d) => expect(d).toEqual({ result: '1024' })],
    [toolkit.fieldPow, { base: '3', exp: (2n ** 256n - 1n).toString() }, (d) => expect(d.result).toMatch(DEC_RE)],
    [toolkit.fieldSqrt, { a: '9' }, (d) => expect(d).toEqual({ result: '3' })],
    [
      toolkit.fieldRandom,
      undefined,
      (d) => {
        expect(Object.keys(d)).toEqual(['result']);
        expect(d.result).toMatch(DEC_RE);
        expect(BigInt(d.result) < R).toBe(true);
      },
    ],
    [toolkit.fieldPrime, undefined, (d) => expect(d).toEqual({ result: R.toString(), prime: R.toString() })],
    [toolkit.ecBase, undefined, (d) => expect(d).toEqual(B8)],
    [toolkit.ecMulbase, { scalar: '1' }, (d) => expect(d).toEqual(B8)],
    [toolkit.ecAdd, { p1: { x: '0', y: '1' }, p2: B8 }, (d) => expect(d).toEqual(B8)],
    [toolkit.ecMul, { point: B8, scalar: '0' }, (d) => expect(d).toEqual({ x: '0', y: '1' })],
    [toolkit.ecIsoncurve, B8, (d) => expect(d).toEqual({ onCurve: true, inSubgroup: true })],
    [toolkit.ecParams, undefined, (d) => expect(Object.keys(d).sort()).toEqual(['a', 'base', 'cofactor', 'd', 'generator', 'order', 'prime', 'subOrder'])],
    [
      toolkit.shamirSplit,
      { secret: '42', threshold: 2, shares: 3 },
      (d) => {
        expect(d.threshold).toBe(2);
        expect(d.total).toBe(3);
        expect(d.shares).toHaveLength(3);
      },
    ],
    [toolkit.shamirCombine, { shares: ['1:49', '2:56'] }, (d) => expect(d).toEqual({ secret: '42' })],
  ];

  it.each(cases.map(([r, body, check], i) => [`${i} ${r.path}`, r, body, check] as const))('%s', async (_n, route, body, check) => {
    check(await invoke(route, body));
  });

  it('every route is covered above', () => {
    expect(new Set(cases.map(([r]) => r.path)).size).toBe(toolkitRoutes.length);
  });

  it('split then combine through the routes', async () => {
    const s = (await invoke(toolkit.shamirSplit, { secret: (R - 1n).toString(), threshold: 3, shares: 5 })) as { shares: string[] };
    expect(await invoke(toolkit.shamirCombine, { shares: [s.shares[4], s.shares[0], s.shares[2]] })).toEqual({ secret: (R - 1n).toString() });
  });
});

describe('INVALID_INPUT from the schemas names the field', () => {
  const cases: [ToolkitRoute, unknown, string][] = [
    [toolkit.fieldAdd, { a: '1' }, 'b: is required'],
    [toolkit.fieldAdd, { a: 1, b: '2' }, 'a: must be a decimal string of digits'],
    [toolkit.fieldAdd, { a: '-1', b: '2' }, 'a: must be a decimal string of digits'],
    [toolkit.fieldAdd, { a: '0x10', b: '2' }, 'a: must be a decimal string'],
    [toolkit.fieldAdd, { a: '1 ', b: '2' }, 'a: must be a decimal string'],
    [toolkit.fieldAdd, { a: '1'.repeat(79), b: '2' }, 'a: must be a decimal string'],
    [toolkit.fieldAdd, null, 'body: must be a JSON object'],
    [toolkit.fieldAdd, ['1', '2'], 'body: must be a JSON object'],
    [toolkit.fieldSub, {}, 'a: is required'],
    [toolkit.fieldMul, { a: '1', b: null }, 'b: must be a decimal string'],
    [toolkit.fieldDiv, { a: '1', b: 2 }, 'b: must be a decimal string'],
    [toolkit.fieldInv, {}, 'a: is required'],
    [toolkit.fieldPow, { base: '2' }, 'exp: is required'],
    [toolkit.fieldSqrt, { a: true }, 'a: must be a decimal string'],
    [toolkit.hashPoseidon, {}, 'input: send exactly one of'],
    [toolkit.hashPoseidon, { input: '1', inputs: ['2'] }, 'input: send exactly one of'],
    [toolkit.hashPoseidon, { inputs: '1' }, 'inputs: must be an array of 1 to 16'],
    [toolkit.hashPoseidon, { inputs: [] }, 'inputs: must be an array of 1 to 16'],
    [toolkit.hashPoseidon, { inputs: Array(17).fill('1') }, 'inputs: must be an array of 1 to 16'],
    [toolkit.hashPoseidon, { inputs: ['1', 'x'] }, 'inputs.1: must be a decimal string'],
    [toolkit.hashPedersen, {}, 'input: is required'],
    [toolkit.hashPedersen, { input: 5 }, 'input: must be a string'],
    [toolkit.hashPedersen, { input: 'a', encoding: 'base64' }, 'encoding: must be "utf8" or "hex"'],
    [toolkit.hashPedersen, { input: 'x'.repeat(600) }, 'input: must be at most 256 bytes'],
    [toolkit.hashMimc, { key: '1' }, 'input: is required'],
    [toolkit.hashMimc, { input: '1', key: 1 }, 'key: must be a decimal string'],
    [toolkit.ecMulbase, { scalar: 7 }, 'scalar: must be a decimal string'],
    [toolkit.ecAdd, { p1: B8 }, 'p2: is required'],
    [toolkit.ecAdd, { p1: B8, p2: { x: '1' } }, 'p2.y: is required'],
    [toolkit.ecAdd, { p1: B8, p2: ['1', '2'] }, 'p2: must be an object {x, y}'],
    [toolkit.ecMul, { point: B8 }, 'scalar: is required'],
    [toolkit.ecIsoncurve, { x: '1' }, 'y: is required'],
    [toolkit.shamirSplit, { secret: '1', threshold: 1, shares: 3 }, 'threshold: must be an integer from 2 to 255'],
    [toolkit.shamirSplit, { secret: '1', threshold: '2', shares: 3 }, 'threshold: must be an integer from 2 to 255'],
    [toolkit.shamirSplit, { secret: '1', threshold: 2.5, shares: 3 }, 'threshold: must be an integer'],
    [toolkit.shamirSplit, { secret: '1', threshold: 2, shares: 256 }, 'shares: must be an integer from 2 to 255'],
    [toolkit.shamirSplit, { secret: '1', threshold: 4, shares: 3 }, 'shares: must be at least threshold'],
    [toolkit.shamirSplit, { threshold: 2, shares: 3 }, 'secret: is required'],
    [toolkit.shamirCombine, {}, 'shares: is required'],
    [toolkit.shamirCombine, { shares: '1:2,2:3' }, 'shares: must be an array of share strings'],
  ];
  it.each(cases.map(([r, body, msg]) => [r.path, JSON.stringify(body)?.slice(0, 60), r, body, msg] as const))('%s %s', async (_p, _b, route, body, msg) => {
    await expectAppError(() => invoke(route, body), 'INVALID_INPUT', msg);
  });
});

describe('run-time error codes through the routes', () => {
  const top = R.toString();
  it('FIELD_OVERFLOW for every field-element input', async () => {
    const cases: [ToolkitRoute, unknown, string][] = [
      [toolkit.hashPoseidon, { input: top }, 'input must be less than the BN254 prime'],
      [toolkit.hashPoseidon, { inputs: ['1', top] }, 'inputs.1 must be less'],
      [toolkit.hashMimc, { input: '1', key: top }, 'key must be less'],
      [toolkit.fieldAdd, { a: top, b: '1' }, 'a must be less'],
      [toolkit.fieldSub, { a: '1', b: top }, 'b must be less'],
      [toolkit.fieldMul, { a: '9'.repeat(78), b: '1' }, 'a must be less'],
      [toolkit.fieldDiv, { a: '1', b: top }, 'b must be less'],
      [toolkit.fieldInv, { a: top }, 'a must be less'],
      [toolkit.fieldPow, { base: top, exp: '1' }, 'base must be less'],
      [toolkit.fieldSqrt, { a: top }, 'a must be less'],
      [toolkit.ecAdd, { p1: { x: top, y: '1' }, p2: B8 }, 'p1.x must be less'],
      [toolkit.ecMul, { point: { x: '0', y: top }, scalar: '1' }, 'point.y must be less'],
      [toolkit.ecIsoncurve, { x: top, y: '1' }, 'x must be less'],
      [toolkit.shamirSplit, { secret: top, threshold: 2, shares: 2 }, 'secret must be less'],
      [toolkit.shamirCombine, { shares: ['1:1', `2:${top}`] }, 'shares.1 value must be less'],
    ];
    for (const [route, body, msg] of cases) await expectAppError(() => invoke(route, body), 'FIELD_OVERFLOW', msg);
  });

  it('INVALID_INPUT for division by zero, zero inverse, non-residue, big scalars and exponents, Pedersen bytes', async () => {
    await expectAppError(() => invoke(toolkit.fieldDiv, { a: '1', b: '0' }), 'INVALID_INPUT', 'b: division by zero');
    await expectAppError(() => invoke(toolkit.fieldDiv, { a: '0', b: '000' }), 'INVALID_INPUT', 'b: division by zero');
    await expectAppError(() => invoke(toolkit.fieldInv, { a: '0' }), 'INVALID_INPUT', 'a: zero has no inverse');
    await expectAppError(() => invoke(toolkit.fieldSqrt, { a: '5' }), 'INVALID_INPUT', 'a: not a quadratic residue');
    await expectAppError(() => invoke(toolkit.fieldPow, { base: '2', exp: (2n ** 256n).toString() }), 'INVALID_INPUT', 'exp: must be less than 2^256');
    await expectAppError(() => invoke(toolkit.ecMulbase, { scalar: (2n ** 256n).toString() }), 'INVALID_INPUT', 'scalar: must be less than 2^256');
    await expectAppError(() => invoke(toolkit.ecMul, { point: B8, scalar: '9'.repeat(78) }), 'INVALID_INPUT', 'scalar: must be less than 2^256');
    await expectAppError(() => invoke(toolkit.hashPedersen, { input: '' }), 'INVALID_INPUT', 'at least one byte');
    await expectAppError(() => invoke(toolkit.hashPedersen, { input: '0x123' }), 'INVALID_INPUT', 'hex');
    await expectAppError(() => invoke(toolkit.hashPedersen, { input: 'x'.repeat(257) }), 'INVALID_INPUT', 'at most 256 bytes');
  });

  it('NOT_ON_CURVE for ec/add and ec/mul; ec/isoncurve reports instead', async () => {
    await expectAppError(() => invoke(toolkit.ecAdd, { p1: { x: '1', y: '0' }, p2: B8 }), 'NOT_ON_CURVE', 'p1 is not on the Baby JubJub curve');
    await expectAppError(() => invoke(toolkit.ecAdd, { p1: B8, p2: { x: '1', y: '1' } }), 'NOT_ON_CURVE', 'p2 is not on');
    await expectAppError(() => invoke(toolkit.ecMul, { point: { x: '2', y: '3' }, scalar: '5' }), 'NOT_ON_CURVE', 'point is not on');
    expect(await invoke(toolkit.ecIsoncurve, { x: '2', y: '3' })).toEqual({ onCurve: false, inSubgroup: false });
  });

  it('INVALID_SHARES for malformed shares, index 0, repeated index, fewer than two', async () => {
    await expectAppError(() => invoke(toolkit.shamirCombine, { shares: ['1:49', 'nope'] }), 'INVALID_SHARES', 'shares.1:');
    await expectAppError(() => invoke(toolkit.shamirCombine, { shares: ['1:49', 7] }), 'INVALID_SHARES', 'shares.1:');
    await expectAppError(() => invoke(toolkit.shamirCombine, { shares: ['0:1', '1:49'] }), 'INVALID_SHARES', 'index 0');
    await expectAppError(() => invoke(toolkit.shamirCombine, { shares: ['1:49', '1:49'] }), 'INVALID_SHARES', 'repeated share index 1');
    await expectAppError(() => invoke(toolkit.shamirCombine, { shares: ['1:49'] }), 'INVALID_SHARES', 'at least 2 shares');
    await expectAppError(() => invoke(toolkit.shamirCombine, { shares: [] }), 'INVALID_SHARES', 'at least 2 shares');
  });

  it('run() without the schema still refuses malformed values (defence in depth)', async () => {
    await expectAppError(() => toolkit.fieldAdd.run({ a: '-1', b: '2' }), 'INVALID_INPUT', 'a: must be a decimal string');
    await expectAppError(() => toolkit.ecMul.run({ point: { x: '1e3', y: '1' }, scalar: '1' }), 'INVALID_INPUT', 'point.x:');
    await expectAppError(() => toolkit.hashPoseidon.run({ input: '1', inputs: ['1'] }), 'INVALID_INPUT', 'exactly one of');
  });
});
