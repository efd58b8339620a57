import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD, CIRCUITS_ROOT, PHASE1_FILE, REPO_ROOT, fileBlake2b } from '../../../circuits/ceremony/files.ts';
import { importPhase1 } from '../../../circuits/ceremony/phase1.ts';
import { terminateCurve } from '../../../circuits/ceremony/snarkjs.ts';
import { type Transcript, developmentReasons, readPhase1Record } from '../../../circuits/ceremony/transcript.ts';
import { describeCommittedKeys } from './setup-keys.ts';

afterAll(async () => terminateCurve());

describe('the committed phase 1', () => {
  it('is the file its record names, made locally with fresh contributions and a beacon', () => {
    const record = readPhase1Record();
    expect(fileBlake2b(PHASE1_FILE)).toBe(record.preparedBlake2b);
    expect(record.source).toBe('local');
    expect(record.contributions.length).toBeGreaterThanOrEqual(2);
    expect(record.beacon?.hash).toMatch(/^[0-9a-f]{64,128}$/);
  });
});

// The three large keys are checked by setup-keys-large.test.ts, on the other worker.
describeCommittedKeys(['password', 'preimage', 'range', 'range_scoped', 'preimage_scoped']);

describe('the kind of a ceremony', () => {
  it('is public only with a published phase 1 and enough independent contributions', () => {
    const three = [
      { name: 'Ana', hash: 'a' },
      { name: 'Bo', hash: 'b' },
      { name: 'Cy', hash: 'c' },
    ];
    expect(developmentReasons({ source: 'powersOfTau28_hez_final_13' }, three)).toEqual([]);
    expect(developmentReasons({ source: 'local' }, three)).toHaveLength(1);
    // The same party twice is one party.
    expect(developmentReasons({ source: 'powersOfTau28_hez_final_13' }, [...three.slice(0, 2), { name: ' ana ', hash: 'd' }])).toHaveLength(1);
  });

  it('phase1 import refuses a file that is not one of the pinned public ones', () => {
    const fake = join(BUILD, `not-a-public-ptau-${process.pid}.ptau`);
    mkdirSync(BUILD, { recursive: true });
    writeFileSync(fake, 'x'.repeat(1000));
    try {
      expect(() => importPhase1(fake, 13)).toThrow(/not one of the pinned public files/);
    } finally {
      rmSync(fake, { force: true });
    }
  });
});

/** `npm run ceremony` and `npm run circuits` in a child, on a scratch copy of circuits/ (CEREMONY_DIR). */
const run = promisify(execFile);
describe('npm run ceremony, end to end on a scratch copy (the preimage circuit, a 2^8 phase 1)', () => {
  const scratch = join(BUILD, `ceremony-test-${process.pid}`);
  const cli = (script: string, ...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', join(REPO_ROOT, script), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, CEREMONY_DIR: scratch },
      timeout: 300_000,
    }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
    );
  const beacon = 'ab'.repeat(32);
  const transcript = () => JSON.parse(readFileSync(join(scratch, 'artifacts', 'preimage', 'transcript.json'), 'utf8')) as Transcript;

  beforeAll(() => {
    mkdirSync(scratch, { recursive: true });
    copyFileSync(join(CIRCUITS_ROOT, 'preimage.circom'), join(scratch, 'preimage.circom'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('circuits, then dev with two local contributions and a beacon: artifacts that verify', async () => {
    const built = await cli('circuits/build.ts', '--only', 'preimage');
    expect(built.code, built.out).toBe(0);
    const dev = await cli('circuits/ceremony/cli.ts', 'dev', '--power', '8', '--contributions', '2', '--beacon', beacon, '--only', 'preimage');
    expect(dev.code, dev.out).toBe(0);
    // The entropy is nowhere in what it printed: only hashes of 64 bytes.
    const t = transcript();
    expect(t.contributions.map((c) => c.name)).toEqual(['development contribution 1', 'development contribution 2']);
    for (const c of t.contributions) expect(dev.out).toContain(c.hash);
    expect(t.kind).toBe('development');
    expect(t.beacon).toEqual({ hash: beacon, iterationsExp: 10 });
    const verified = await cli('circuits/ceremony/cli.ts', 'verify', '--only', 'preimage');
    expect(verified.code, verified.out).toBe(0);
  }, 600_000);

  it('several parties: start, a contribution each (once each), finalize; verify refuses a tampered key', async () => {
    expect((await cli('circuits/ceremony/cli.ts', 'start', '--only', 'preimage')).code).toBe(0);
    for (const who of ['Ana', 'Bo', 'Cy']) {
      const r = await cli('circuits/ceremony/cli.ts', 'contribute', '--name', who);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(new RegExp(`preimage: contribution of ${who}: [0-9a-f]{128}`));
    }
    const again = await cli('circuits/ceremony/cli.ts', 'contribute', '--name', 'bo');
    expect(again.code).toBe(1);
    expect(again.out).toMatch(/has contributed already/);
    const done = await cli('circuits/ceremony/cli.ts', 'finalize', '--beacon', beacon);
    expect(done.code, done.out).toBe(0);
    const t = transcript();
    expect(t.contributions.map((c) => c.name)).toEqual(['Ana', 'Bo', 'Cy']);
    // Three parties, but a local phase 1: still development.
    expect(t.reasons).toEqual(['phase 1 is a local one, not a published Powers of Tau file']);

    const zkey = join(scratch, 'artifacts', 'preimage', 'preimage.zkey');
    const bytes = readFileSync(zkey);
    bytes[bytes.length - 100] ^= 1;
    writeFileSync(zkey, bytes);
    const tampered = await cli('circuits/ceremony/cli.ts', 'verify', '--only', 'preimage');
    expect(tampered.code).toBe(1);
    expect(tampered.out).toMatch(/preimage: FAILED/);
  }, 600_000);
});
