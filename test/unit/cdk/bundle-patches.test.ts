import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../../cdk/bundling.ts';

/**
 * What cdk/bundle-patches.ts changes in a function's bundle, bundled with the functions' settings
 * and run in a fresh process: the import-time work is gone and what the packages export is the same.
 */
const repo = join(import.meta.dirname, '..', '..', '..');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function run(code: string): Promise<{ out: Record<string, unknown>; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'shroud-patch-'));
  dirs.push(dir);
  const outfile = join(dir, 'index.mjs');
  const { entryPoints: _, ...options } = esbuildOptions('unused', outfile);
  await build({ ...options, stdin: { contents: code, resolveDir: repo, loader: 'ts', sourcefile: 'entry.ts' } });
  writeFileSync(join(dir, 'package.json'), '{}');
  const r = spawnSync(process.execPath, [outfile], { cwd: dir, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return { out: JSON.parse(r.stdout.trim().split('\n').pop()!), stderr: r.stderr };
}

describe('bundle patches', () => {
  it('stateless.js makes its test key pairs on first read, not at import, and they are the same keys', async () => {
    const { out } = await run(`
      import { Keypair } from '@solana/web3.js';
      const made = [];
      const fromSeed = Keypair.fromSeed;
      Keypair.fromSeed = (seed) => (made.push(seed[31]), fromSeed.call(Keypair, seed));
      const light = await import('@lightprotocol/stateless.js');
      const atImport = [...made];
      const seed = (n) => { const s = new Uint8Array(32); s[31] = n; return fromSeed.call(Keypair, s).publicKey.toBase58(); };
      const keys = { ALICE: light.ALICE, BOB: light.BOB, CHARLIE: light.CHARLIE, DAVE: light.DAVE };
      console.log(JSON.stringify({
        atImport,
        afterRead: [...made],
        same: light.ALICE === keys.ALICE,
        keys: Object.fromEntries(Object.entries(keys).map(([k, v]) => [k, v.publicKey.toBase58()])),
        expected: { ALICE: seed(255), BOB: seed(254), CHARLIE: seed(253), DAVE: seed(252) },
        helper: light.getTestKeypair(255).publicKey.toBase58(),
      }));
    `);
    expect(out.atImport).toEqual([]);
    expect(out.afterRead).toEqual([255, 254, 253, 252]);
    expect(out.same).toBe(true);
    expect(out.keys).toEqual(out.expected);
    expect(out.helper).toBe((out.expected as Record<string, string>).ALICE);
  }, 120_000);

  it('Node built-ins imported as ES modules load as require() does: no namespace facade, so node:http does not load undici', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shroud-patch-cjs-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'emitter.cjs'), "const EE = require('events'); module.exports = class Bus extends EE {};");
    const { out } = await run(`
      import http, { request } from 'node:http';
      import * as https from 'https';
      import { createHash } from 'node:crypto';
      import { readFileSync } from 'fs';
      import Bus from ${JSON.stringify(join(dir, 'emitter.cjs'))};
      const bus = new Bus();
      let heard = 0;
      bus.on('x', () => heard++);
      bus.emit('x');
      console.log(JSON.stringify({
        undici: process.moduleLoadList.filter((m) => m.includes('undici')),
        sameHttp: http === process.getBuiltinModule('node:http') && request === http.request,
        https: typeof https.request,
        hash: createHash('sha256').update('a').digest('hex').slice(0, 8),
        read: typeof readFileSync,
        heard,
      }));
    `);
    expect(out).toEqual({ undici: [], sameHttp: true, https: 'function', hash: 'ca978112', read: 'function', heard: 1 });
  }, 120_000);

  it('bigint-buffer converts without trying to load its native binding (no warning at import)', async () => {
    const { out, stderr } = await run(`
      import { toBigIntLE, toBigIntBE, toBufferLE, toBufferBE } from 'bigint-buffer';
      const b = Buffer.from('0102030405060708090a', 'hex');
      console.log(JSON.stringify({
        le: toBigIntLE(b).toString(16), be: toBigIntBE(b).toString(16),
        bufLE: toBufferLE(0x0102n, 4).toString('hex'), bufBE: toBufferBE(0x0102n, 4).toString('hex'),
      }));
    `);
    expect(stderr).not.toMatch(/bindings/);
    expect(out).toEqual({ le: 'a090807060504030201', be: '102030405060708090a', bufLE: '02010000', bufBE: '00000102' });
  }, 120_000);
});
