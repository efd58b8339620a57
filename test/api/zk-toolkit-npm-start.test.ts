/**
 * Issue 4's "done when", against the real `npm start`: all 23 /api/zk-toolkit routes plus the
 * artifact download answer over HTTP, and a client that downloads the `password` artifacts and
 * proves on its own machine gets `valid: true` from proof/verify.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { passwordCommitment, passwordProof, randomSalt } from '#lib/client/password-proof.ts';
import { terminateCurves } from '#lib/zk/groth16.ts';
import { HttpClient } from '../support/runtime.ts';
import { sharedNpmStart } from '../support/npm-start.ts';

const B8 = {
  x: '5299619240641551281634865583518297030282874472190772894086521144482721001553',
  y: '16950150798460657717958625567821834550301663161624707787222815936182638968203',
};

afterAll(async () => {
  await terminateCurves(); // the local proof below runs snarkjs in this process
});

describe('npm start serves the ZK toolkit', () => {
  it('answers all 23 routes and the artifact route; a locally made password proof verifies', async () => {
    const server = await sharedNpmStart(); // the run's one (test/support/shared-npm-start.ts)
    const c = new HttpClient(server.url);
    const T = (sub: string) => `/api/zk-toolkit/${sub}`;
    const seen = new Set<string>();
    const call = async (method: 'GET' | 'POST', sub: string, body?: unknown) => {
      const res = method === 'GET' ? await c.get(T(sub)) : await c.post(T(sub), body);
      expect(res.status, `${method} ${sub}: ${JSON.stringify(res.json)}`).toBe(200);
      expect(res.json.success).toBe(true);
      seen.add(`${method} ${T(sub)}`);
      return res.json.data;
    };

    expect((await call('POST', 'hash/poseidon', { input: '1' })).hash).toBe('0x29176100eaa962bdc1fe6c654d6a3c130e96a4d1168b33848b897dc502820133');
    expect((await call('POST', 'hash/mimc', { input: '1', key: '2' })).hash).toBe('0x176c6eefc3fdf8d6136002d8e6f7a885bbd1c4e3957b93ddc1ec3ae7859f1a08');
    expect((await call('POST', 'hash/pedersen', { input: 'hello' })).hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await call('POST', 'field/add', { a: '2', b: '3' })).toEqual({ result: '5' });
    expect(await call('POST', 'field/sub', { a: '5', b: '3' })).toEqual({ result: '2' });
    expect(await call('POST', 'field/mul', { a: '6', b: '7' })).toEqual({ result: '42' });
    expect(await call('POST', 'field/div', { a: '42', b: '7' })).toEqual({ result: '6' });
    expect((await call('POST', 'field/inv', { a: '2' })).result).toMatch(/^\d+$/);
    expect(await call('POST', 'field/pow', { base: '2', exp: '10' })).toEqual({ result: '1024' });
    expect(await call('POST', 'field/sqrt', { a: '9' })).toEqual({ result: '3' });
    expect((await call('GET', 'field/random')).result).toMatch(/^\d+$/);
    expect((await call('GET', 'field/prime')).result).toBe('21888242871839275222246405745257275088548364400416034343698204186575808495617');
    expect(await call('GET', 'ec/base')).toEqual(B8);
    expect(await call('POST', 'ec/mulbase', { scalar: '1' })).toEqual(B8);
    const twoB = await call('POST', 'ec/add', { p1: B8, p2: B8 });
    expect(await call('POST', 'ec/mul', { point: B8, scalar: '2' })).toEqual(twoB);
    expect(await call('POST', 'ec/isoncurve', twoB)).toEqual({ onCurve: true, inSubgroup: true });
    expect((await call('GET', 'ec/params')).a).toBe('168700');
    const split = await call('POST', 'shamir/split', { secret: '1234567890', threshold: 2, shares: 3 });
    expect(await call('POST', 'shamir/combine', { shares: split.shares.slice(1) })).toEqual({ secret: '1234567890' });
    const generated = await call('POST', 'proof/generate', { inputs: { secret: '42' } });
    expect(await call('POST', 'proof/verify', generated)).toEqual({ valid: true });
    const { circuits } = await call('GET', 'proof/circuits');

    // The client side of the storage password proof: download, prove here, send only the proof.
    const links = circuits.find((x: { name: string }) => x.name === 'password').artifacts;
    const fetched: Record<string, Uint8Array> = {};
    for (const kind of ['wasm', 'zkey', 'vkey'] as const) {
      const res = await fetch(new URL(links[kind].url, server.url));
      expect(res.status, kind).toBe(200);
      fetched[kind] = new Uint8Array(await res.arrayBuffer());
      expect(fetched[kind].length).toBe(links[kind].bytes);
    }
    seen.add(`GET ${T('proof/circuits/:name/:artifact')}`);
    const password = 'hunter2 but longer';
    const salt = randomSalt();
    const local = await passwordProof(password, salt, { wasm: fetched.wasm!, zkey: fetched.zkey! });
    expect(local.commitment).toBe(await passwordCommitment(password, salt));
    expect(await call('POST', 'proof/verify', { circuit: 'password', proof: local.proof, publicSignals: local.publicSignals })).toEqual({ valid: true });

    const table = routes.filter((r) => r.group === 'zk-toolkit').map((r) => `${r.method} ${r.path}`);
    expect([...seen].sort()).toEqual(table.sort());
    expect(table).toHaveLength(24);
  });
});
