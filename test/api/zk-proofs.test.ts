/**
 * The Groth16 routes of /api/zk-toolkit over HTTP: proof/generate checked by the snarkjs CLI,
 * snarkjs's own proofs accepted by proof/verify, tampered and malformed proofs, PROOF_FAILED,
 * proof/circuits and the artifact downloads — and a client that downloads the password
 * artifacts, proves on its own machine (the password never leaves it) and gets valid: true.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildPoseidon, type Poseidon } from 'circomlibjs';
import * as snarkjsUntyped from 'snarkjs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { advanceClock } from '#lib/clock.ts';
import { passwordCommitment, passwordProof, randomSalt } from '#lib/client/password-proof.ts';
import { artifactPath, DEFAULT_CIRCUIT } from '#lib/zk/circuits.ts';
import { terminateCurves } from '#lib/zk/groth16.ts';
import { startTestRuntime, type HttpClient, type TestRuntime } from '../support/runtime.ts';

const snarkjs = snarkjsUntyped as {
  groth16: { fullProve(input: unknown, wasm: string | Uint8Array, zkey: string | Uint8Array): Promise<{ proof: Proof; publicSignals: string[] }> };
};
type Proof = { pi_a: string[]; pi_b: string[][]; pi_c: string[]; protocol: string; curve: string };

const ROOT = join(import.meta.dirname, '..', '..');
const R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const T = (sub: string) => `/api/zk-toolkit/${sub}`;

let rt: TestRuntime;
let c: HttpClient;
let poseidon: Poseidon;
const H = (...xs: bigint[]) => poseidon.F.toObject(poseidon(xs)).toString();

beforeAll(async () => {
  [rt, poseidon] = await Promise.all([startTestRuntime(), buildPoseidon()]);
  c = rt.client();
});
afterAll(async () => {
  await rt?.stop();
  // The handlers run in this process: their snarkjs curve (worker threads) and ours must go.
  await terminateCurves();
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } | null }).curve_bn128?.terminate();
});
beforeEach(() => advanceClock(61_000)); // a fresh rate-limit window per test

async function post(sub: string, body: unknown) {
  return c.post(T(sub), body);
}
async function generate(body: unknown): Promise<{ proof: Proof; publicSignals: string[] }> {
  const res = await post('proof/generate', body);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  expect(res.json.success).toBe(true);
  return res.json.data;
}
async function verify(body: unknown): Promise<boolean> {
  const res = await post('proof/verify', body);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  expect(Object.keys(res.json.data)).toEqual(['valid']);
  return res.json.data.valid;
}
async function download(path: string): Promise<{ bytes: Buffer; headers: Headers }> {
  const res = await fetch(new URL(path, rt.url));
  expect(res.status, path).toBe(200);
  return { bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

describe('proof/generate', () => {
  it('proves the default circuit; the snarkjs CLI verifier accepts the proof', async () => {
    expect(DEFAULT_CIRCUIT).toBe('preimage');
    const { proof, publicSignals } = await generate({ inputs: { secret: '42' } });
    expect(proof.protocol).toBe('groth16');
    expect(proof.curve).toBe('bn128');
    expect(proof.pi_a).toHaveLength(3);
    expect(proof.pi_b).toHaveLength(3);
    expect(proof.pi_c).toHaveLength(3);
    expect(publicSignals).toEqual([H(42n)]);

    const dir = mkdtempSync(join(tmpdir(), 'shroud-zk-api-'));
    try {
      // The verification key as a client gets it: over HTTP.
      writeFileSync(join(dir, 'vkey.json'), (await download(T('proof/circuits/preimage/vkey'))).bytes);
      writeFileSync(join(dir, 'public.json'), JSON.stringify(publicSignals));
      writeFileSync(join(dir, 'proof.json'), JSON.stringify(proof));
      writeFileSync(join(dir, 'wrong.json'), JSON.stringify([H(43n)]));
      // Asynchronously: a blocked event loop would stall the in-process server and its keep-alives.
      const cli = async (pub: string) =>
        (await promisify(execFile)('npx', ['snarkjs', 'groth16', 'verify', join(dir, 'vkey.json'), join(dir, pub), join(dir, 'proof.json')], { cwd: ROOT }))
          .stdout;
      expect(await cli('public.json')).toMatch(/OK!/);
      await expect(cli('wrong.json')).rejects.toThrow(); // non-zero exit on an invalid proof
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names another circuit; array and public inputs pass through', async () => {
    const { publicSignals } = await generate({ circuit: 'range', inputs: { value: '30', blinding: '8', min: '18', max: '65' } });
    expect(publicSignals).toEqual([H(30n, 8n), '18', '65']);
  });

  it('inputs that do not satisfy the circuit are 400 PROOF_FAILED with the reason', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ circuit: 'range', inputs: { value: '99', blinding: '8', min: '18', max: '65' } }, /do not satisfy the range circuit/],
      [{ circuit: 'password', inputs: { pw_lo: (1n << 128n).toString(), pw_hi: '1', salt: '1' } }, /password/],
      [{ circuit: 'range', inputs: { value: '30', blinding: '8', min: '18' } }, /missing input .*max/],
      [{ inputs: { secret: '1', extra: '2' } }, /unknown input .*extra/],
      [{ circuit: 'membership', inputs: { leaf: '1', pathElements: ['1'], pathIndices: ['0'] } }, /pathElements/],
    ];
    for (const [body, reason] of cases) {
      const res = await post('proof/generate', body);
      expect(res.status, JSON.stringify(res.json)).toBe(400);
      expect(res.json.error).toBe('PROOF_FAILED');
      expect(res.json.message).toMatch(reason);
      expect(res.json.message).not.toMatch(/node_modules|\.js:\d+/);
    }
  });

  it('malformed requests are INVALID_INPUT naming the field; an input ≥ r is FIELD_OVERFLOW', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{}, 'INVALID_INPUT', /^inputs: is required/],
      [{ inputs: ['42'] }, 'INVALID_INPUT', /^inputs: /],
      [{ inputs: { secret: 42 } }, 'INVALID_INPUT', /^inputs\.secret: /],
      [{ inputs: { secret: '0x2a' } }, 'INVALID_INPUT', /^inputs\.secret: /],
      [{ inputs: { secret: '-1' } }, 'INVALID_INPUT', /^inputs\.secret: /],
      [{ inputs: { secret: '1'.repeat(79) } }, 'INVALID_INPUT', /^inputs\.secret: /],
      [{ inputs: { secret: '1' }, circuit: 7 }, 'INVALID_INPUT', /^circuit: /],
      [{ inputs: { secret: '1' }, circuit: 'nope' }, 'INVALID_INPUT', /unknown circuit/],
      [{ inputs: { secret: R.toString() } }, 'FIELD_OVERFLOW', /secret/],
    ];
    for (const [body, code, message] of cases) {
      const res = await post('proof/generate', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json).toEqual({ error: code, message: expect.stringMatching(message) });
    }
  });
});

describe('proof/verify', () => {
  it('accepts a proof made by snarkjs directly; refuses it for other signals or a tampered proof', async () => {
    const input = { value: '30', blinding: '8', min: '18', max: '65' };
    const { proof, publicSignals } = await snarkjs.groth16.fullProve(input, artifactPath('range', 'wasm'), artifactPath('range', 'zkey'));
    expect(await verify({ circuit: 'range', proof, publicSignals })).toBe(true);
    // Without protocol/curve, and without the projective "1": the affine form is accepted too.
    const bare = { pi_a: proof.pi_a.slice(0, 2), pi_b: proof.pi_b.slice(0, 2), pi_c: proof.pi_c.slice(0, 2) };
    expect(await verify({ circuit: 'range', proof: bare, publicSignals })).toBe(true);

    expect(await verify({ circuit: 'range', proof, publicSignals: [publicSignals[0], '17', '65'] })).toBe(false);
    // Another valid curve point in place of pi_a (here pi_c): well-formed, wrong.
    expect(await verify({ circuit: 'range', proof: { ...proof, pi_a: proof.pi_c }, publicSignals })).toBe(false);
    // A proof of one circuit against another circuit's key.
    const pre = await generate({ inputs: { secret: '5' } });
    expect(await verify(pre)).toBe(true);
    expect(await verify({ ...pre, publicSignals: [H(6n)] })).toBe(false);
    expect(await verify({ circuit: 'password', ...pre })).toBe(false);
  });

  it('a malformed proof is 400 INVALID_INPUT; a signal ≥ r is FIELD_OVERFLOW', async () => {
    const { proof, publicSignals } = await generate({ inputs: { secret: '7' } });
    const cases: Array<[unknown, string, RegExp?]> = [
      [{ publicSignals }, 'INVALID_INPUT', /^proof: /],
      [{ proof }, 'INVALID_INPUT', /^publicSignals: /],
      [{ proof: 'proof', publicSignals }, 'INVALID_INPUT', /^proof: /],
      [{ proof: { ...proof, pi_a: ['1', '3', '1'] }, publicSignals }, 'INVALID_INPUT', /pi_a .*not a point on the curve/],
      [{ proof: { ...proof, pi_a: [proof.pi_a[0], 'x', '1'] }, publicSignals }, 'INVALID_INPUT', /^proof\.pi_a/],
      [{ proof: { ...proof, pi_b: proof.pi_a }, publicSignals }, 'INVALID_INPUT', /^proof\.pi_b/],
      [{ proof: { ...proof, protocol: 'plonk' }, publicSignals }, 'INVALID_INPUT', /^proof\.protocol/],
      [{ proof, publicSignals: [] }, 'INVALID_INPUT', /public signal/],
      [{ proof, publicSignals: [42] }, 'INVALID_INPUT', /^publicSignals\.0: /],
      [{ proof, publicSignals: ['0x2a'] }, 'INVALID_INPUT', /publicSignals/],
      [{ proof, publicSignals: [R.toString()] }, 'FIELD_OVERFLOW'],
    ];
    for (const [body, code, message] of cases) {
      const res = await post('proof/verify', body);
      expect(res.status, `${JSON.stringify(body).slice(0, 100)} → ${JSON.stringify(res.json)}`).toBe(400);
      expect(res.json.error).toBe(code);
      if (message) expect(res.json.message).toMatch(message);
    }
  });
});

describe('proof/circuits and the artifacts', () => {
  it('lists each circuit with its signals, inputs, constraints and artifact links', async () => {
    const res = await c.get(T('proof/circuits'));
    expect(res.status).toBe(200);
    const { defaultCircuit, circuits } = res.json.data;
    expect(defaultCircuit).toBe('preimage');
    expect(circuits.map((x: { name: string }) => x.name).sort()).toEqual([
      'membership',
      'membership_scoped',
      'password',
      'preimage',
      'preimage_scoped',
      'range',
      'range_scoped',
      'withdraw',
    ]);
    const password = circuits.find((x: { name: string }) => x.name === 'password');
    expect(password).toMatchObject({
      description: expect.stringContaining('Poseidon'),
      publicSignals: ['commitment'],
      privateInputs: ['pw_lo', 'pw_hi', 'salt'],
      constraints: expect.any(Number),
    });
    for (const kind of ['wasm', 'zkey', 'vkey'] as const) {
      expect(password.artifacts[kind]).toEqual({
        url: T(`proof/circuits/password/${kind}`),
        file: expect.any(String),
        bytes: expect.any(Number),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    }
  });

  it('serves each artifact byte for byte, typed, immutable, with the sha256 as ETag and 304 on a match', async () => {
    const { circuits } = (await c.get(T('proof/circuits'))).json.data;
    const types = { wasm: 'application/wasm', zkey: 'application/octet-stream', vkey: 'application/json' } as const;
    for (const circuit of circuits) {
      for (const kind of ['wasm', 'zkey', 'vkey'] as const) {
        const link = circuit.artifacts[kind];
        const { bytes, headers } = await download(link.url);
        expect(bytes.equals(readFileSync(artifactPath(circuit.name, kind))), `${circuit.name}/${kind}`).toBe(true);
        expect(bytes.length).toBe(link.bytes);
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(link.sha256);
        expect(headers.get('content-type')).toBe(types[kind]);
        expect(headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect(headers.get('etag')).toBe(`"${link.sha256}"`);
      }
    }
    const etag = `"${circuits[0].artifacts.zkey.sha256}"`;
    const again = await fetch(new URL(circuits[0].artifacts.zkey.url, rt.url), { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
  });

  it('an unknown circuit or artifact is 404 NOT_FOUND', async () => {
    for (const path of ['nope/wasm', 'password/r1cs', 'password/password.zkey', '..%2Fpassword/zkey', '__proto__/vkey', 'password/constructor']) {
      const res = await c.get(T(`proof/circuits/${path}`));
      expect(res.status, path).toBe(404);
      expect(res.json.error).toBe('NOT_FOUND');
    }
  });
});

describe('a client proving on its own machine', () => {
  it('downloads the password artifacts, proves locally, and proof/verify says valid: true', async () => {
    const { circuits } = (await c.get(T('proof/circuits'))).json.data;
    const links = circuits.find((x: { name: string }) => x.name === 'password').artifacts;
    const wasm = new Uint8Array((await download(links.wasm.url)).bytes);
    const zkey = new Uint8Array((await download(links.zkey.url)).bytes);

    // Only the commitment and the proof go to the server; the password stays here.
    const password = 'correct horse battery staple';
    const salt = randomSalt();
    const commitment = await passwordCommitment(password, salt);
    const { proof, publicSignals } = await passwordProof(password, salt, { wasm, zkey });
    expect(publicSignals).toEqual([commitment]);
    const body = { circuit: 'password', proof, publicSignals };
    expect(JSON.stringify(body)).not.toContain(password);
    expect(await verify(body)).toBe(true);
    // The same proof does not stand for another commitment.
    expect(await verify({ ...body, publicSignals: [await passwordCommitment('wrong', salt)] })).toBe(false);
  });
});
