import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BN254_R as R } from '#lib/zk/bn254.ts';
import * as F from '#lib/zk/field.ts';
import { hashMimc, hashPedersen, hashPoseidon, mimc7, pedersen, pedersenInput, poseidon, PEDERSEN_MAX_BYTES } from '#lib/zk/hashes.ts';
import { inSubgroup, onCurve, packPoint } from '#lib/zk/babyjub.ts';
import { expectAppError } from './helpers.ts';

const HASH_RE = /^0x[0-9a-f]{64}$/;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => BigInt(from + i));
const zeros = (n: number) => Array<bigint>(n).fill(0n);

describe('Poseidon (circomlibjs wasm, circomlib parameters)', () => {
  // Source: iden3/circomlibjs test/poseidon.js ("poseidonperm_x5_254_3" and "_5").
  it('circomlibjs test vectors', async () => {
    expect(await poseidon([1n, 2n])).toBe(0x115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189an);
    expect(await poseidon([1n, 2n, 3n, 4n])).toBe(0x299c867db6c1fdd79dcefa40e4510b9837e60ebb1ce0663dbaa525df65250465n);
  });

  // Source: iden3/go-iden3-crypto poseidon/poseidon_test.go, TestPoseidonHash.
  it.each([
    [[1n], 18586133768512220936620570745912940619677854269274689475585506675881198879027n],
    [[1n, 2n], 7853200120776062878684798364095072458815029376092732009249414926327459813530n],
    [[1n, 2n, ...zeros(3)], 1018317224307729531995786483840663576608797660851238720571059489595066344487n],
    [[1n, 2n, ...zeros(4)], 15336558801450556532856248569924170992202208561737609669134139141992924267169n],
    [[3n, 4n, ...zeros(3)], 5811595552068139067952687508729883632420015185677766880877743348592482390548n],
    [[3n, 4n, ...zeros(4)], 12263118664590987767234828103155242843640892839966517009184493198782366909018n],
    [range(1, 6), 20400040500897583745843009878988256314335038853985262692600694741116813247201n],
    [range(1, 14), 8354478399926161176778659061636406690034081872658507739535256090879947077494n],
    [[...range(1, 9), ...zeros(5)], 5540388656744764564518487011617040650780060800286365721923524861648744699539n],
    [[...range(1, 9), ...zeros(7)], 11882816200654282475720830292386643970958445617880627439994635298904836126497n],
    [range(1, 16), 9989051620750914585850546081941653841776809718687451684622678807385399211877n],
  ])('go-iden3-crypto vector %#', async (inputs, expected) => {
    expect(await poseidon(inputs)).toBe(expected);
  });

  it('request level: input or inputs, hash as 0x + 64 hex, canonical echo', async () => {
    expect(await hashPoseidon({ input: '1' })).toEqual({
      algorithm: 'poseidon',
      hash: '0x' + 18586133768512220936620570745912940619677854269274689475585506675881198879027n.toString(16).padStart(64, '0'),
      input: '1',
    });
    const d = await hashPoseidon({ inputs: ['01', '002'] });
    expect(d).toEqual({ algorithm: 'poseidon', hash: '0x115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189a', inputs: ['1', '2'] });
    expect(d.hash).toMatch(HASH_RE);
  });

  it('a single input equals a one-element inputs array; r − 1 is accepted', async () => {
    const top = (R - 1n).toString();
    expect((await hashPoseidon({ input: top })).hash).toBe((await hashPoseidon({ inputs: [top] })).hash);
  });

  it('errors: r (never reduced to 0), 17 inputs, none, both, malformed', async () => {
    // go-iden3-crypto TestInputsNotInField rejects r; circomlibjs alone would hash it as 0.
    await expectAppError(() => hashPoseidon({ input: R.toString() }), 'FIELD_OVERFLOW', 'input must be less than the BN254 prime');
    await expectAppError(() => hashPoseidon({ inputs: ['1', '2', '3', R.toString()] }), 'FIELD_OVERFLOW', 'inputs.3 must be less');
    await expectAppError(() => hashPoseidon({ inputs: Array(17).fill('1') }), 'INVALID_INPUT', 'inputs: must be an array of 1 to 16');
    await expectAppError(() => hashPoseidon({ inputs: [] }), 'INVALID_INPUT', 'inputs:');
    await expectAppError(() => hashPoseidon({}), 'INVALID_INPUT', 'exactly one of');
    await expectAppError(() => hashPoseidon({ input: '1', inputs: ['1'] }), 'INVALID_INPUT', 'exactly one of');
    await expectAppError(() => hashPoseidon({ input: '0x01' }), 'INVALID_INPUT', 'input: must be a decimal string');
    // The 135-digit value of go-iden3-crypto's TestInputsNotInField: too long to be a number here.
    await expectAppError(
      () =>
        hashPoseidon({
          input: '12242166908188651009877250812424843524687801523336557272219921456462821518061999999999999999999999999999999999999999999999999999999999',
        }),
      'INVALID_INPUT',
      'input:',
    );
  });
});

describe('MiMC7 (91 rounds, seed "mimc")', () => {
  // Source: iden3/go-iden3-crypto mimc7/mimc7_test.go, TestMIMC7 (MIMC7Hash(12, 45)) and
  // TestMIMC7Generic (MIMC7HashGeneric(1, 2, 91)).
  it('go-iden3-crypto single-call vectors', async () => {
    expect(await mimc7(12n, 45n)).toBe(0x2ba7ebad3c6b6f5a20bdecba2333c63173ca1a5f2f49d958081d9fa7179c44e4n);
    expect(await mimc7(1n, 2n)).toBe(10594780656576967754230020536574539122676596303354946869887184401991294982664n);
  });

  // The multi-element hash of circomlibjs (multiHash) and go-iden3-crypto (Hash) is
  // r₀ = key, rᵢ₊₁ = rᵢ + xᵢ + MiMC7(xᵢ, rᵢ): rebuilt here from our single-call mimc7, so their
  // published vectors test it too.
  const multiHash = async (xs: bigint[], key = 0n) => {
    let r = key;
    for (const x of xs) r = F.add(F.add(r, x), await mimc7(x, r));
    return r;
  };

  it('circomlibjs test/mimc7.js multiHash vectors', async () => {
    expect(await multiHash([1n, 2n])).toBe(0xb91ebbd35d7448ecc13e75a7ceb1ce5bbe428090acfae0da2c3867a874ce6ean);
    expect(await multiHash([1n, 2n, 3n, 4n])).toBe(0x19ce9298d9e8ada63b2fb30c938d25cc9116aca2795f8b90fd9530687b4ad075n);
  });

  it('go-iden3-crypto Hash vectors (TestMIMC7)', async () => {
    expect(await multiHash([12n])).toBe(0x237c92644dbddb86d8a259e0e923aaab65a93f1ec5758b8799988894ac0958fdn);
    expect(await multiHash([78n, 41n])).toBe(0x067f3202335ea256ae6e6aadcd2d5f7f4b06a00b2d1e0de903980d5ab552dc70n);
    expect(await multiHash([12n, 45n])).toBe(0x15ff7fe9793346a17c3150804bcb36d161c8662b110c50f55ccb7113948d8879n);
    expect(await multiHash([12n, 45n, 78n, 41n])).toBe(0x284bc1f34f335933a23a433b6ff3ee179d682cd5e5e2fcdd2d964afa85104bebn);
  });

  it('go-iden3-crypto HashGeneric vector: r = MiMC7(x = r, key = aᵢ) chained from 0', async () => {
    // Source: mimc7_test.go TestMIMC7Generic, HashGeneric(0, [1, 2, 3], 91); exercises the key argument.
    let r = 0n;
    for (const a of [1n, 2n, 3n]) r = await mimc7(r, a);
    expect(r).toBe(6464402164086696096195815557694604139393321133243036833927490113253119343397n);
  });

  it('request level: key defaults to 0, hash is 0x + 64 hex', async () => {
    const d = await hashMimc({ input: '12', key: '45' });
    expect(d).toEqual({ algorithm: 'mimc7', hash: '0x2ba7ebad3c6b6f5a20bdecba2333c63173ca1a5f2f49d958081d9fa7179c44e4', input: '12', key: '45' });
    const noKey = await hashMimc({ input: '12' });
    expect(noKey.key).toBe('0');
    expect(noKey.hash).toBe((await hashMimc({ input: '12', key: '0' })).hash);
    expect(noKey.hash).toMatch(HASH_RE);
  });

  it('errors: input or key ≥ r, malformed', async () => {
    await expectAppError(() => hashMimc({ input: R.toString() }), 'FIELD_OVERFLOW', 'input must be less');
    await expectAppError(() => hashMimc({ input: '1', key: R.toString() }), 'FIELD_OVERFLOW', 'key must be less');
    await expectAppError(() => hashMimc({ input: '1', key: '-1' }), 'INVALID_INPUT', 'key: must be a decimal string');
  });
});

describe('Pedersen (circomlib, Baby JubJub, blake256 generators)', () => {
  // Source: iden3/circomlibjs test/pedersenhash.js, "Hello" → 0e90d7d6…fd8b (packed point).
  const HELLO = '0x0e90d7d613ab8b5ea7f4f8bc537db6bb0fa2e5e97bbac1c1f609ef9e6a35fd8b';

  it('circomlibjs vector, as text and as hex bytes', async () => {
    const text = await hashPedersen({ input: 'Hello' });
    expect(text.hash).toBe(HELLO);
    expect(text).toMatchObject({ algorithm: 'pedersen', encoding: 'utf8', bytes: 5 });
    const hex = await hashPedersen({ input: '0x48656c6c6f' });
    expect(hex).toEqual({ ...text, encoding: 'hex' });
    expect((await hashPedersen({ input: '0x48656C6C6F' })).hash).toBe(HELLO); // hex digits in either case
  });

  it('the point is on the curve, in the subgroup, and packs to the hash', async () => {
    for (const input of ['Hello', 'x'.repeat(PEDERSEN_MAX_BYTES), '0x00', 'ünïcödé ✓ 🎉']) {
      const d = await hashPedersen({ input });
      const p = { x: BigInt(d.point.x), y: BigInt(d.point.y) };
      expect(onCurve(p)).toBe(true);
      expect(await inSubgroup(p)).toBe(true);
      expect('0x' + Buffer.from(await packPoint(p)).toString('hex')).toBe(d.hash);
      expect(d.hash).toMatch(HASH_RE);
    }
  });

  it('UTF-8 text hashes its UTF-8 bytes; encoding "utf8" hashes a text that starts with 0x', async () => {
    const utf = await hashPedersen({ input: 'héllo 🎉' });
    const hex = await hashPedersen({ input: '0x' + Buffer.from('héllo 🎉', 'utf8').toString('hex') });
    expect(utf.hash).toBe(hex.hash);
    expect(utf.bytes).toBe(Buffer.byteLength('héllo 🎉'));
    const t = await hashPedersen({ input: '0xzz', encoding: 'utf8' });
    expect(t.hash).toBe((await pedersen(new TextEncoder().encode('0xzz'))).packed.reduce((s, b) => s + b.toString(16).padStart(2, '0'), '0x'));
  });

  it('different inputs give different hashes (property, short inputs)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.uint8Array({ minLength: 1, maxLength: 40 }), async (a, b) => {
        fc.pre(Buffer.compare(Buffer.from(a), Buffer.from(b)) !== 0);
        const [ha, hb] = await Promise.all([pedersen(a), pedersen(b)]);
        expect(Buffer.from(ha.packed).equals(Buffer.from(hb.packed))).toBe(false);
      }),
      { numRuns: 15 },
    );
  });

  it(`errors: empty, over ${PEDERSEN_MAX_BYTES} bytes, bad hex, lone surrogate, wrong type`, async () => {
    await expectAppError(() => hashPedersen({ input: '' }), 'INVALID_INPUT', 'input: must hold at least one byte');
    await expectAppError(() => hashPedersen({ input: '0x' }), 'INVALID_INPUT', 'input: must hold at least one byte');
    await expectAppError(() => hashPedersen({ input: 'x'.repeat(PEDERSEN_MAX_BYTES + 1) }), 'INVALID_INPUT', `at most ${PEDERSEN_MAX_BYTES} bytes`);
    await expectAppError(() => hashPedersen({ input: 'é'.repeat(129) }), 'INVALID_INPUT', `at most ${PEDERSEN_MAX_BYTES} bytes`); // 258 UTF-8 bytes
    await expectAppError(() => hashPedersen({ input: '0x' + '00'.repeat(PEDERSEN_MAX_BYTES + 1) }), 'INVALID_INPUT', `at most ${PEDERSEN_MAX_BYTES} bytes`);
    await expectAppError(() => hashPedersen({ input: '0xabc' }), 'INVALID_INPUT', 'even number of hex digits');
    await expectAppError(() => hashPedersen({ input: '0xzz' }), 'INVALID_INPUT', 'hex');
    await expectAppError(() => hashPedersen({ input: 'abcd', encoding: 'hex' }), 'INVALID_INPUT', 'hex');
    await expectAppError(() => hashPedersen({ input: 'a\ud800b' }), 'INVALID_INPUT', 'not well-formed Unicode');
    await expectAppError(() => pedersenInput(42), 'INVALID_INPUT', 'input: must be a string');
  });

  it('accepts exactly the cap', () => {
    expect(pedersenInput('0x' + 'ab'.repeat(PEDERSEN_MAX_BYTES)).bytes.length).toBe(PEDERSEN_MAX_BYTES);
    expect(pedersenInput('é'.repeat(PEDERSEN_MAX_BYTES / 2)).bytes.length).toBe(PEDERSEN_MAX_BYTES);
  });
});

describe('library-level guards', () => {
  it('poseidon / mimc7 refuse bigints outside [0, r) instead of letting circomlibjs reduce them', async () => {
    await expectAppError(() => poseidon([1n, R]), 'FIELD_OVERFLOW', 'inputs.1 must be less');
    await expectAppError(() => poseidon([-1n]), 'FIELD_OVERFLOW', 'inputs.0');
    await expectAppError(() => poseidon([]), 'INVALID_INPUT', 'inputs:');
    await expectAppError(() => mimc7(R, 0n), 'FIELD_OVERFLOW', 'input must be less');
    await expectAppError(() => mimc7(1n, R + 1n), 'FIELD_OVERFLOW', 'key must be less');
  });
});
