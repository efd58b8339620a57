import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  A,
  BASE8,
  COFACTOR,
  D,
  GENERATOR,
  ORDER,
  SUB_ORDER,
  addPoints,
  ecAdd,
  ecBase,
  ecIsOnCurve,
  ecMul,
  ecMulBase,
  ecParams,
  inSubgroup,
  mulPoint,
  onCurve,
  packPoint,
  parsePoint,
  type Point,
} from '#lib/zk/babyjub.ts';
import { BN254_R as R } from '#lib/zk/bn254.ts';
import * as F from '#lib/zk/field.ts';
import { getBabyJub } from '#lib/zk/primitives.ts';
import { expectAppError } from './helpers.ts';

const O: Point = { x: 0n, y: 1n };
const str = (p: Point) => ({ x: p.x.toString(), y: p.y.toString() });
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// Points of iden3/circomlibjs test/babyjub.js and iden3/go-iden3-crypto babyjub/babyjub_test.go
// (P1, P2 are also EIP-2494 "Test Cases" 1 and 2).
const P1 = {
  x: 17777552123799933955779906779655732241715742912184938656739573121738514868268n,
  y: 2626589144620713026669568689430873010625803728049924121243784502389097019475n,
};
const P2 = {
  x: 16540640123574156134436876038791482806971768689494387082833631921987005038935n,
  y: 20819045374670962167435360035096875258406992893633759881276124905556507972311n,
};
const P1x2 = {
  x: 6890855772600357754907169075114257697580319025794532037257385534741338397365n,
  y: 4338620300185947561074059802482547481416142213883829469920100239455078257889n,
};

describe('EIP-2494 (Baby Jubjub Elliptic Curve)', () => {
  it('Specification: r, a, d, n = h·l, G, B — as ec/params reports them', async () => {
    const p = await ecParams();
    expect(p).toEqual({
      a: '168700',
      d: '168696',
      order: '21888242871839275222246405745257275088614511777268538073601725287587578984328',
      subOrder: '2736030358979909402780800718157159386076813972158567259200215660948447373041',
      cofactor: '8',
      generator: {
        x: '995203441582195749578291179787384436505546430278305826713579947235728471134',
        y: '5472060717959818805561601436314318772137091100104008585924551046643952123905',
      },
      base: {
        x: '5299619240641551281634865583518297030282874472190772894086521144482721001553',
        y: '16950150798460657717958625567821834550301663161624707787222815936182638968203',
      },
      prime: '21888242871839275222246405745257275088548364400416034343698204186575808495617',
    });
    expect(COFACTOR * SUB_ORDER).toBe(ORDER);
    expect(await ecBase()).toEqual(p.base);
  });

  it('Test 1 (addition)', async () => {
    expect(await ecAdd({ p1: str(P1), p2: str(P2) })).toEqual({
      x: '7916061937171219682591368294088513039687205273691143098332585753343424131937',
      y: '14035240266687799601661095864649209771790948434046947201833777492504781204499',
    });
  });

  it('Test 2 (doubling) and Test 3 (doubling the identity)', async () => {
    expect(await addPoints(P1, P1)).toEqual(P1x2);
    expect(await ecAdd({ p1: { x: '0', y: '1' }, p2: { x: '0', y: '1' } })).toEqual({ x: '0', y: '1' });
  });

  it('Test 4 (curve membership): (0, 1) is on the curve, (1, 0) is not', async () => {
    expect(await ecIsOnCurve({ x: '0', y: '1' })).toEqual({ onCurve: true, inSubgroup: true });
    expect(await ecIsOnCurve({ x: '1', y: '0' })).toEqual({ onCurve: false, inSubgroup: false });
  });

  it('Test 5 (base point choice): B = 8·G', async () => {
    expect(await ecMul({ point: str(GENERATOR), scalar: '8' })).toEqual(str(BASE8));
  });

  it('Test 6 (base point order): l·B = O', async () => {
    expect(await ecMulBase({ scalar: SUB_ORDER.toString() })).toEqual({ x: '0', y: '1' });
  });

  it('G generates all n points: l·G ≠ O, n·G = O; G is on the curve but not in the subgroup', async () => {
    expect(await mulPoint(GENERATOR, SUB_ORDER)).not.toEqual(O);
    expect(await mulPoint(GENERATOR, ORDER)).toEqual(O);
    expect(await ecIsOnCurve(str(GENERATOR))).toEqual({ onCurve: true, inSubgroup: false });
    expect(await ecIsOnCurve(str(BASE8))).toEqual({ onCurve: true, inSubgroup: true });
  });

  it('Backwards compatibility: G and B map to the published Montgomery and reduced-Edwards points', () => {
    // (x, y) → (u, v) = ((1+y)/(1−y), (1+y)/((1−y)·x));  (x, y) → (x', y) = (x·(−f), y)
    const mont = (p: Point) => {
      const u = F.div(F.add(1n, p.y), F.sub(1n, p.y));
      return { u, v: F.div(u, p.x) };
    };
    expect(mont(GENERATOR)).toEqual({ u: 7n, v: 4258727773875940690362607550498304598101071202821725296872974770776423442226n });
    expect(mont(BASE8)).toEqual({
      u: 7117928050407583618111176421555214756675765419608405867398403713213306743542n,
      v: 14577268218881899420966779687690205425227431577728659819975198491127179315626n,
    });
    const minusF = 15527681003928902128179717624703512672403908117992798440346960750464748824729n;
    expect(F.mul(GENERATOR.x, minusF)).toBe(4986949742063700372957640167352107234059678269330781000560194578601267663727n);
    expect(F.mul(BASE8.x, minusF)).toBe(9671717474070082183213120605117400219616337014328744928644933853176787189663n);
    // a and d of the reduced form: a' = −1, d' = −d/a
    expect(F.neg(F.div(D, A))).toBe(12181644023421730124874158521699555681764249180949974110617291017600649128846n);
  });
});

describe('circomlibjs / go-iden3-crypto vectors', () => {
  it('scalar multiplication (TestMul0, TestMul1, TestMul2 / "mulPointEscalar 0-2")', async () => {
    expect(await mulPoint(P1, 3n)).toEqual({
      x: 19372461775513343691590086534037741906533799473648040012278229434133483800898n,
      y: 9458658722007214007257525444427903161243386465067105737478306991484593958249n,
    });
    expect(await ecMul({ point: str(P1), scalar: '14035240266687799601661095864649209771790948434046947201833777492504781204499' })).toEqual({
      x: '17070357974431721403481313912716834497662307308519659060910483826664480189605',
      y: '4014745322800118607127020275658861516666525056516280575712425373174125159339',
    });
    expect(await ecMul({ point: str(P1x2), scalar: '20819045374670962167435360035096875258406992893633759881276124905556507972311' })).toEqual({
      x: '13563888653650925984868671744672725781658357821216877865297235725727006259983',
      y: '8442587202676550862664528699803615547505326611544120184665036919364004251662',
    });
  });

  it('TestAdd4: O + P2 = P2', async () => {
    expect(await addPoints(O, P2)).toEqual(P2);
  });

  it('inCurve / inSubgroup (TestInCurve3-4, TestInSubGroup1-2)', async () => {
    for (const p of [P1, P1x2]) expect(await ecIsOnCurve(str(p))).toEqual({ onCurve: true, inSubgroup: true });
  });

  it('packPoint (TestCompressDecompress1-2 / "packPoint - unpackPoint 1-2")', async () => {
    expect(hex(await packPoint(P1))).toBe('53b81ed5bffe9545b54016234682e7b2f699bd42a5e9eae27ff4051bc698ce85');
    expect(hex(await packPoint(P1x2))).toBe('e114eb17eddf794f063a68fecac515e3620e131976108555735c8b0773929709');
  });
});

describe('scalars: integers in [0, 2^256), used exactly', () => {
  it('mulbase: 0 → O, 1 → B, l + 1 → B, l·B = O, 2^256 − 1 accepted', async () => {
    expect(await ecMulBase({ scalar: '0' })).toEqual({ x: '0', y: '1' });
    expect(await ecMulBase({ scalar: '1' })).toEqual(str(BASE8));
    expect(await ecMulBase({ scalar: '0001' })).toEqual(str(BASE8));
    expect(await ecMulBase({ scalar: (SUB_ORDER + 1n).toString() })).toEqual(str(BASE8));
    const big = 2n ** 256n - 1n;
    expect(await ecMulBase({ scalar: big.toString() })).toEqual(str(await mulPoint(BASE8, big % SUB_ORDER)));
  });

  it('mul is not reduced mod l: on G (order n), l + 1 differs from 1', async () => {
    expect(await mulPoint(GENERATOR, SUB_ORDER + 1n)).not.toEqual(GENERATOR);
    expect(await mulPoint(GENERATOR, ORDER + 1n)).toEqual(GENERATOR);
  });

  it('errors: scalar ≥ 2^256 or malformed → INVALID_INPUT', async () => {
    await expectAppError(() => ecMulBase({ scalar: (2n ** 256n).toString() }), 'INVALID_INPUT', 'scalar: must be less than 2^256');
    await expectAppError(() => ecMul({ point: str(BASE8), scalar: '-3' }), 'INVALID_INPUT', 'scalar: must be a decimal string');
  });
});

describe('points: coordinates < r, on the curve', () => {
  it('a coordinate ≥ r is FIELD_OVERFLOW (even if it would reduce to a curve point)', async () => {
    const aliasY = { x: '0', y: (1n + R).toString() }; // ≡ (0, 1) mod r
    await expectAppError(() => ecAdd({ p1: aliasY, p2: str(BASE8) }), 'FIELD_OVERFLOW', 'p1.y must be less than the BN254 prime');
    await expectAppError(() => ecMul({ point: { x: R.toString(), y: '1' }, scalar: '2' }), 'FIELD_OVERFLOW', 'point.x must be less');
    await expectAppError(() => ecIsOnCurve({ x: '0', y: R.toString() }), 'FIELD_OVERFLOW', 'y must be less');
  });

  it('a point off the curve is NOT_ON_CURVE for add and mul', async () => {
    await expectAppError(() => ecAdd({ p1: str(BASE8), p2: { x: '1', y: '0' } }), 'NOT_ON_CURVE', 'p2 is not on the Baby JubJub curve');
    await expectAppError(() => ecMul({ point: { x: '1', y: '1' }, scalar: '2' }), 'NOT_ON_CURVE', 'point is not on');
    await expectAppError(() => ecMul({ point: { x: (BASE8.x + 1n).toString(), y: BASE8.y.toString() }, scalar: '1' }), 'NOT_ON_CURVE');
  });

  it('malformed points are INVALID_INPUT naming the coordinate', async () => {
    await expectAppError(() => parsePoint('p1', { x: '1' }), 'INVALID_INPUT', 'p1.y: must be a decimal string');
    await expectAppError(() => parsePoint('p1', null), 'INVALID_INPUT', 'p1: must be an object');
  });

  it('low-order points are on the curve but outside the subgroup, and work in add/mul', async () => {
    const T2 = { x: 0n, y: R - 1n }; // order 2
    expect(onCurve(T2)).toBe(true);
    expect(await inSubgroup(T2)).toBe(false);
    expect(await mulPoint(T2, 2n)).toEqual(O);
    const T8 = await mulPoint(GENERATOR, SUB_ORDER); // order 8
    expect(await mulPoint(T8, 8n)).toEqual(O);
    expect(await mulPoint(T8, 4n)).toEqual(T2);
    expect(await ecIsOnCurve(str(T8))).toEqual({ onCurve: true, inSubgroup: false });
  });
});

describe('group properties', () => {
  const subgroupPoint = fc.bigInt({ min: 1n, max: SUB_ORDER - 1n }).map((s) => mulPoint(BASE8, s));

  it('mul agrees with repeated add', async () => {
    await fc.assert(
      fc.asyncProperty(subgroupPoint, fc.integer({ min: 0, max: 24 }), async (pp, k) => {
        const p = await pp;
        let acc = O;
        for (let i = 0; i < k; i++) acc = await addPoints(acc, p);
        expect(await mulPoint(p, BigInt(k))).toEqual(acc);
      }),
      { numRuns: 12 },
    );
  });

  it('(a + b)·B = a·B + b·B, a·(b·B) = (ab mod l)·B, add is commutative, results stay in the subgroup', async () => {
    const scalar = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });
    await fc.assert(
      fc.asyncProperty(scalar, scalar, async (a, b) => {
        const aB = await mulPoint(BASE8, a);
        const bB = await mulPoint(BASE8, b);
        const sum = await addPoints(aB, bB);
        expect(await addPoints(bB, aB)).toEqual(sum);
        expect(await mulPoint(BASE8, (a + b) % SUB_ORDER)).toEqual(sum);
        expect(await mulPoint(bB, a % SUB_ORDER)).toEqual(await mulPoint(BASE8, (a * b) % SUB_ORDER));
        expect(await ecIsOnCurve(str(sum))).toEqual({ onCurve: true, inSubgroup: true });
      }),
      { numRuns: 8 },
    );
  });

  it('P + (−P) = O with −(x, y) = (−x, y)', async () => {
    await fc.assert(
      fc.asyncProperty(subgroupPoint, async (pp) => {
        const p = await pp;
        expect(await addPoints(p, { x: F.neg(p.x), y: p.y })).toEqual(O);
      }),
      { numRuns: 10 },
    );
  });
});

describe('library-level guards (computed points, not parsed ones)', () => {
  it('addPoints / mulPoint / packPoint refuse coordinates outside [0, r) and off-curve points', async () => {
    await expectAppError(() => addPoints({ x: 0n, y: 1n + R }, BASE8), 'FIELD_OVERFLOW', 'p1.y must be less');
    await expectAppError(() => addPoints(BASE8, { x: 1n, y: 0n }), 'NOT_ON_CURVE', 'p2 is not on');
    await expectAppError(() => mulPoint({ x: -1n, y: 1n }, 2n), 'FIELD_OVERFLOW', 'point.x');
    await expectAppError(() => mulPoint(BASE8, 2n ** 256n), 'INVALID_INPUT', 'scalar');
    await expectAppError(() => mulPoint(BASE8, -1n), 'INVALID_INPUT', 'scalar');
    await expectAppError(() => packPoint({ x: 2n, y: 3n }), 'NOT_ON_CURVE');
    expect(await inSubgroup({ x: 0n, y: 1n + R })).toBe(false);
  });
});

describe('the same points and bytes as circomlibjs', () => {
  // Points of every order: multiples of G (order n = 8·l), so the cofactor part is exercised too.
  const anyPoint = fc.bigInt({ min: 0n, max: ORDER - 1n }).map((s) => mulPoint(GENERATOR, s));
  const scalar = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });

  it('add, mul, inSubgroup and packPoint agree with circomlibjs on random points and scalars', async () => {
    const bj = await getBabyJub();
    const toC = (p: Point) => [bj.F.e(p.x), bj.F.e(p.y)] as [Uint8Array, Uint8Array];
    const fromC = (p: [Uint8Array, Uint8Array]): Point => ({ x: bj.F.toObject(p[0]), y: bj.F.toObject(p[1]) });
    await fc.assert(
      fc.asyncProperty(anyPoint, anyPoint, scalar, async (pp, qq, k) => {
        const [p, q] = [await pp, await qq];
        expect(await addPoints(p, q)).toEqual(fromC(bj.addPoint(toC(p), toC(q))));
        expect(await mulPoint(p, k)).toEqual(fromC(bj.mulPointEscalar(toC(p), k)));
        expect(await inSubgroup(p)).toBe(bj.inSubgroup(toC(p)));
        expect(hex(await packPoint(p))).toBe(hex(bj.packPoint(toC(p))));
      }),
      { numRuns: 25 },
    );
  });
});
