/**
 * /api/zk-toolkit over HTTP (the local runtime in this process): every route's success path with
 * known vectors, every error code of the group, the envelope, and the 200/min rate limit.
 * The Groth16 routes are in zk-proofs.test.ts.
 */
import { buildPedersenHash } from 'circomlibjs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { advanceClock, clock } from '#lib/clock.ts';
import { toolkitRoutes } from '#lib/zk/toolkit.ts';
import { terminateCurves } from '#lib/zk/groth16.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';

const R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const BASE8 = {
  x: '5299619240641551281634865583518297030282874472190772894086521144482721001553',
  y: '16950150798460657717958625567821834550301663161624707787222815936182638968203',
};
const SUB_ORDER = '2736030358979909402780800718157159386076813972158567259200215660948447373041';
// circomlibjs's babyjub test vectors: P, P + P and 3·P.
const P = {
  x: '17777552123799933955779906779655732241715742912184938656739573121738514868268',
  y: '2626589144620713026669568689430873010625803728049924121243784502389097019475',
};
const P_PLUS_P = {
  x: '6890855772600357754907169075114257697580319025794532037257385534741338397365',
  y: '4338620300185947561074059802482547481416142213883829469920100239455078257889',
};
const THREE_P = {
  x: '19372461775513343691590086534037741906533799473648040012278229434133483800898',
  y: '9458658722007214007257525444427903161243386465067105737478306991484593958249',
};
const OFF_CURVE = { x: '1', y: '1' };
const HEX32 = /^0x[0-9a-f]{64}$/;
const DECIMAL = /^(0|[1-9][0-9]{0,77})$/;

let rt: TestRuntime;
let c: HttpClient;
beforeAll(async () => {
  rt = await startTestRuntime();
  c = rt.client();
});
afterAll(async () => {
  await rt?.stop();
  await terminateCurves(); // none are started here, but an import of groth16 must not keep the worker alive
});
/** The limit is per source IP and every request here is 127.0.0.1: each test gets a fresh window. */
const freshWindow = () => advanceClock((60 - (clock.nowSeconds() % 60)) * 1000 + 60_000);
beforeEach(freshWindow);

const T = (sub: string) => `/api/zk-toolkit/${sub}`;
async function ok(sub: string, body?: unknown) {
  const res = body === undefined ? await c.get(T(sub)) : await c.post(T(sub), body);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  expect(res.json.success).toBe(true);
  expect(Object.keys(res.json)).toEqual(['success', 'data']);
  return res.json.data;
}
async function fails(sub: string, body: unknown, status: number, code: string, message?: RegExp) {
  const res = await c.post(T(sub), body);
  expect(res.status, `${sub} ${JSON.stringify(body)?.slice(0, 120)} → ${JSON.stringify(res.json)}`).toBe(status);
  expect(res.json).toEqual({ error: code, message: expect.any(String) });
  if (message) expect(res.json.message).toMatch(message);
  expect(res.json.message).not.toMatch(/node_modules|\.ts:\d+|\bat \w+ \(/);
  return res.json.message as string;
}

describe('the route table', () => {
  it('has the 23 routes of API.md plus the artifact download, each handled by its own module, public', () => {
    const rows = routes.filter((r) => r.group === 'zk-toolkit');
    expect(rows).toHaveLength(24);
    for (const t of toolkitRoutes) {
      const row = rows.find((r) => r.method === t.method && r.path === t.path);
      expect(row, t.path).toBeDefined();
      expect(row!.handler).toBe(`functions/zk-toolkit/${t.name}.ts`);
    }
    for (const p of ['generate', 'verify']) expect(rows.find((r) => r.path === T(`proof/${p}`))?.profile).toBe('crypto');
    // Public; proof/generate and proof/verify load a session when one is sent (the proof history records it).
    const recorded = new Set([T('proof/generate'), T('proof/verify')]);
    expect(rows.every((r) => r.auth === (recorded.has(r.path) ? 'optional' : 'none'))).toBe(true);
  });
});

describe('hashes', () => {
  it('poseidon: circomlib vectors, one input or several', async () => {
    expect(await ok('hash/poseidon', { input: '1' })).toEqual({
      algorithm: 'poseidon',
      hash: '0x29176100eaa962bdc1fe6c654d6a3c130e96a4d1168b33848b897dc502820133',
      input: '1',
    });
    const two = await ok('hash/poseidon', { inputs: ['1', '2'] });
    expect(two.hash).toBe('0x' + 7853200120776062878684798364095072458815029376092732009249414926327459813530n.toString(16));
    expect(two.inputs).toEqual(['1', '2']);
    // Leading zeros are accepted and echoed canonically.
    expect((await ok('hash/poseidon', { input: '0001' })).input).toBe('1');
  });

  it('mimc: MiMC7 vector (x = 1, k = 2), key defaults to 0', async () => {
    expect(await ok('hash/mimc', { input: '1', key: '2' })).toEqual({
      algorithm: 'mimc7',
      hash: '0x176c6eefc3fdf8d6136002d8e6f7a885bbd1c4e3957b93ddc1ec3ae7859f1a08',
      input: '1',
      key: '2',
    });
    const noKey = await ok('hash/mimc', { input: '1' });
    expect(noKey.key).toBe('0');
    expect(noKey.hash).toMatch(HEX32);
  });

  it('pedersen: the packed point circomlibjs computes, for text and hex bytes', async () => {
    const ph = await buildPedersenHash();
    const expected = '0x' + Buffer.from(ph.hash(new TextEncoder().encode('hello'))).toString('hex');
    const text = await ok('hash/pedersen', { input: 'hello' });
    expect(text).toMatchObject({ algorithm: 'pedersen', hash: expected, encoding: 'utf8', bytes: 5 });
    expect(text.hash).toMatch(HEX32);
    expect(text.point.x).toMatch(DECIMAL);
    const hex = await ok('hash/pedersen', { input: '0x68656c6c6f' });
    expect(hex).toMatchObject({ hash: expected, encoding: 'hex' });
  });
});

describe('field', () => {
  const r1 = (R - 1n).toString();
  it.each([
    ['field/add', { a: r1, b: '1' }, '0'],
    ['field/add', { a: '2', b: '3' }, '5'],
    ['field/sub', { a: '0', b: '1' }, r1],
    ['field/mul', { a: r1, b: r1 }, '1'],
    ['field/div', { a: '1', b: '2' }, ((R + 1n) / 2n).toString()],
    ['field/inv', { a: '2' }, ((R + 1n) / 2n).toString()],
    ['field/pow', { base: '2', exp: '10' }, '1024'],
    ['field/pow', { base: '3', exp: R.toString() }, '3'], // exp is not a field element: r is fine
    ['field/sqrt', { a: '4' }, '2'],
  ])('%s %j → %s', async (sub, body, result) => {
    expect(await ok(sub, body)).toEqual({ result });
  });

  it('random: a canonical element below r, fresh each time', async () => {
    const a = (await ok('field/random')).result;
    const b = (await ok('field/random')).result;
    for (const v of [a, b]) {
      expect(v).toMatch(DECIMAL);
      expect(BigInt(v) < R).toBe(true);
    }
    expect(a).not.toBe(b);
  });

  it('prime: r', async () => {
    expect((await ok('field/prime')).result).toBe(R.toString());
  });

  it('zero divisor, zero inverse and a non-residue are INVALID_INPUT naming the field', async () => {
    await fails('field/div', { a: '1', b: '0' }, 400, 'INVALID_INPUT', /^b: /);
    await fails('field/inv', { a: '0' }, 400, 'INVALID_INPUT', /^a: /);
    await fails('field/sqrt', { a: '5' }, 400, 'INVALID_INPUT', /^a: .*residue/);
  });
});

describe('Baby JubJub', () => {
  it('base and params', async () => {
    expect(await ok('ec/base')).toEqual(BASE8);
    expect(await ok('ec/params')).toMatchObject({ a: '168700', d: '168696', cofactor: '8', subOrder: SUB_ORDER, base: BASE8, prime: R.toString() });
  });

  it('mulbase: 1·B = B, l·B = identity', async () => {
    expect(await ok('ec/mulbase', { scalar: '1' })).toEqual(BASE8);
    expect(await ok('ec/mulbase', { scalar: SUB_ORDER })).toEqual({ x: '0', y: '1' });
  });

  it('add and mul: circomlibjs vectors', async () => {
    expect(await ok('ec/add', { p1: P, p2: P })).toEqual(P_PLUS_P);
    expect(await ok('ec/mul', { point: P, scalar: '3' })).toEqual(THREE_P);
    const twoB = await ok('ec/mulbase', { scalar: '2' });
    expect(await ok('ec/add', { p1: BASE8, p2: BASE8 })).toEqual(twoB);
  });

  it('isoncurve reports rather than rejects', async () => {
    expect(await ok('ec/isoncurve', BASE8)).toEqual({ onCurve: true, inSubgroup: true });
    expect(await ok('ec/isoncurve', P)).toMatchObject({ onCurve: true });
    expect(await ok('ec/isoncurve', OFF_CURVE)).toEqual({ onCurve: false, inSubgroup: false });
  });

  it('a point off the curve is 400 NOT_ON_CURVE', async () => {
    await fails('ec/add', { p1: OFF_CURVE, p2: BASE8 }, 400, 'NOT_ON_CURVE', /p1/);
    await fails('ec/add', { p1: BASE8, p2: OFF_CURVE }, 400, 'NOT_ON_CURVE', /p2/);
    await fails('ec/mul', { point: OFF_CURVE, scalar: '2' }, 400, 'NOT_ON_CURVE', /point/);
  });
});

describe('Shamir', () => {
  it('split 3 of 5, any 3 shares combine to the secret', async () => {
    const secret = '123456789012345678901234567890';
    const split = await ok('shamir/split', { secret, threshold: 3, shares: 5 });
    expect(split.threshold).toBe(3);
    expect(split.total).toBe(5);
    expect(split.shares).toHaveLength(5);
    split.shares.forEach((s: string, i: number) => expect(s).toMatch(new RegExp(`^${i + 1}:(0|[1-9][0-9]*)$`)));
    for (const pick of [
      [0, 1, 2],
      [4, 2, 0],
      [1, 3, 4],
    ]) {
      expect(await ok('shamir/combine', { shares: pick.map((i) => split.shares[i]) })).toEqual({ secret });
    }
    // A known vector: f(x) = 7 + 3x gives 1:10, 2:13.
    expect(await ok('shamir/combine', { shares: ['1:10', '2:13'] })).toEqual({ secret: '7' });
  });

  it('malformed, repeated or too few shares are 400 INVALID_SHARES', async () => {
    await fails('shamir/combine', { shares: ['1:10'] }, 400, 'INVALID_SHARES');
    await fails('shamir/combine', { shares: ['1:10', 'x:13'] }, 400, 'INVALID_SHARES', /shares\.1/);
    await fails('shamir/combine', { shares: ['1:10', 13] }, 400, 'INVALID_SHARES', /shares\.1/);
    await fails('shamir/combine', { shares: ['1:10', '1:13'] }, 400, 'INVALID_SHARES', /repeated/);
    await fails('shamir/combine', { shares: ['0:10', '1:13'] }, 400, 'INVALID_SHARES', /index 0/);
    await fails('shamir/combine', { shares: ['1:10', '256:13'] }, 400, 'INVALID_SHARES');
  });

  it('bad split parameters are INVALID_INPUT naming the field', async () => {
    await fails('shamir/split', { secret: '1', threshold: 1, shares: 5 }, 400, 'INVALID_INPUT', /^threshold: /);
    await fails('shamir/split', { secret: '1', threshold: '3', shares: 5 }, 400, 'INVALID_INPUT', /^threshold: /);
    await fails('shamir/split', { secret: '1', threshold: 3, shares: 2 }, 400, 'INVALID_INPUT', /^shares: /);
    await fails('shamir/split', { secret: '1', threshold: 3, shares: 256 }, 400, 'INVALID_INPUT', /^shares: /);
    await fails('shamir/combine', {}, 400, 'INVALID_INPUT', /^shares: /);
  });
});

describe('number format: INVALID_INPUT naming the field', () => {
  // Every decimal field of every route, with a valid body around it.
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['hash/poseidon', { input: '1' }, 'input'],
    ['hash/mimc', { input: '1', key: '2' }, 'input'],
    ['hash/mimc', { input: '1', key: '2' }, 'key'],
    ['field/add', { a: '1', b: '2' }, 'a'],
    ['field/add', { a: '1', b: '2' }, 'b'],
    ['field/sub', { a: '1', b: '2' }, 'b'],
    ['field/mul', { a: '1', b: '2' }, 'a'],
    ['field/div', { a: '1', b: '2' }, 'a'],
    ['field/inv', { a: '1' }, 'a'],
    ['field/pow', { base: '2', exp: '3' }, 'base'],
    ['field/pow', { base: '2', exp: '3' }, 'exp'],
    ['field/sqrt', { a: '4' }, 'a'],
    ['ec/mulbase', { scalar: '1' }, 'scalar'],
    ['ec/mul', { point: BASE8, scalar: '1' }, 'scalar'],
    ['ec/isoncurve', { ...BASE8 }, 'x'],
    ['ec/isoncurve', { ...BASE8 }, 'y'],
    ['shamir/split', { secret: '1', threshold: 2, shares: 3 }, 'secret'],
  ];
  const bad: Array<[string, unknown]> = [
    ['a number', 5],
    ['hex', '0x1f'],
    ['a sign', '-1'],
    ['a plus sign', '+1'],
    ['79 digits', '1'.repeat(79)],
    ['spaces', ' 1'],
    ['a decimal point', '1.0'],
    ['an exponent', '1e3'],
    ['empty', ''],
    ['null', null],
    ['an array', ['1']],
  ];

  it.each(cases)('%s: %s', async (sub, valid, field) => {
    expect((await c.post(T(sub), valid)).status).toBe(200);
    const missing = { ...valid };
    delete missing[field];
    // `key` is optional; Poseidon's `input` may be replaced by `inputs`, and says so.
    const why = sub === 'hash/poseidon' ? 'send exactly one of input' : 'is required';
    if (field !== 'key') await fails(sub, missing, 400, 'INVALID_INPUT', new RegExp(`^${field}: ${why}`));
    for (const [, value] of bad) await fails(sub, { ...valid, [field]: value }, 400, 'INVALID_INPUT', new RegExp(`^${field}: `));
  });

  it('points: a missing or mistyped coordinate names its path', async () => {
    await fails('ec/add', { p1: { x: BASE8.x }, p2: BASE8 }, 400, 'INVALID_INPUT', /^p1\.y: is required/);
    await fails('ec/add', { p1: { x: 1, y: BASE8.y }, p2: BASE8 }, 400, 'INVALID_INPUT', /^p1\.x: /);
    await fails('ec/add', { p1: 'B8', p2: BASE8 }, 400, 'INVALID_INPUT', /^p1: /);
    await fails('ec/mul', { scalar: '1' }, 400, 'INVALID_INPUT', /^point: is required/);
    await fails('hash/poseidon', { inputs: ['1', 2] }, 400, 'INVALID_INPUT', /^inputs\.1: /);
  });

  it('a body that is not a JSON object, or not JSON', async () => {
    await fails('field/add', [1, 2], 400, 'INVALID_INPUT', /^body: /);
    await fails('field/add', undefined, 400, 'INVALID_INPUT', /^body: /);
    const notJson = await c.post(T('field/add'), undefined, { body: '{"a": "1",', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
    expect(notJson.json.error).toBe('INVALID_INPUT');
  });

  it('scalars and exponents go up to 2^256 − 1; beyond is INVALID_INPUT', async () => {
    const max = (2n ** 256n - 1n).toString();
    expect(max).toHaveLength(78);
    await ok('ec/mulbase', { scalar: max });
    await ok('field/pow', { base: '2', exp: max });
    await fails('ec/mulbase', { scalar: '9'.repeat(78) }, 400, 'INVALID_INPUT', /^scalar: /);
  });
});

describe('FIELD_OVERFLOW: a field element ≥ r is refused, never reduced', () => {
  const r = R.toString();
  const big = '9'.repeat(78);
  it.each([
    ['hash/poseidon', { input: r }],
    ['hash/poseidon', { inputs: ['1', big] }],
    ['hash/mimc', { input: '1', key: r }],
    ['field/add', { a: r, b: '0' }],
    ['field/sub', { a: '0', b: big }],
    ['field/mul', { a: r, b: '1' }],
    ['field/div', { a: '1', b: r }],
    ['field/inv', { a: r }],
    ['field/pow', { base: r, exp: '1' }],
    ['field/sqrt', { a: r }],
    ['ec/add', { p1: { x: r, y: '1' }, p2: BASE8 }],
    ['ec/mul', { point: { x: BASE8.x, y: (R + BigInt(BASE8.y)).toString() }, scalar: '1' }],
    ['ec/isoncurve', { x: r, y: '1' }],
    ['shamir/split', { secret: r, threshold: 2, shares: 3 }],
    ['shamir/combine', { shares: ['1:1', `2:${r}`] }],
  ])('%s %j', async (sub, body) => {
    await fails(sub, body, 400, 'FIELD_OVERFLOW');
  });

  it('r − 1 is fine', async () => {
    expect(await ok('field/add', { a: (R - 1n).toString(), b: '0' })).toEqual({ result: (R - 1n).toString() });
  });
});

describe('rate limit', () => {
  it('200 requests a minute per client; the 201st is 429 RATE_LIMITED with Retry-After', async () => {
    // beforeEach put the clock at the start of a window: 200 quick requests stay inside it.
    const statuses: number[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const out = await Promise.all(Array.from({ length: 20 }, () => fetch(`${rt.url}${T('field/prime')}`)));
      for (const r of out) {
        statuses.push(r.status);
        await r.arrayBuffer();
      }
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(200);
    const over = await c.post(T('field/add'), { a: '1', b: '2' });
    expect(over.status).toBe(429);
    expect(over.json.error).toBe('RATE_LIMITED');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(over.headers.get('ratelimit-limit')).toBe('200');
    expect(over.headers.get('ratelimit-remaining')).toBe('0');
    // The group shares one counter: the artifact route is limited too.
    expect((await c.get(T('proof/circuits/preimage/vkey'))).status).toBe(429);
    freshWindow();
    expect((await c.post(T('field/add'), { a: '1', b: '2' })).status).toBe(200);
  });
});
