import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors.ts';
import { DEFAULT_CIRCUIT, LAYER_DIR, artifactPath, circuitsDir, getCircuit, listCircuits } from '#lib/zk/circuits.ts';

const REPO_ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'circuits', 'artifacts');
const NAMES = ['membership', 'membership_scoped', 'password', 'preimage', 'preimage_scoped', 'range', 'range_scoped', 'withdraw'];

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.code : `not an AppError: ${String(e)}`;
  }
  return undefined;
}

describe('circuit registry', () => {
  const saved = process.env.CIRCUITS_DIR;
  afterEach(() => {
    if (saved === undefined) delete process.env.CIRCUITS_DIR;
    else process.env.CIRCUITS_DIR = saved;
  });

  it('without CIRCUITS_DIR: the layer if mounted, else the repository artifacts', () => {
    delete process.env.CIRCUITS_DIR;
    expect(circuitsDir().replace(/\/$/, '')).toBe(existsSync(LAYER_DIR) ? LAYER_DIR : REPO_ARTIFACTS);
  });

  it('lists the circuits with their signals and artifact names', () => {
    const list = listCircuits();
    expect(list.map((c) => c.name)).toEqual(NAMES);
    const byName = Object.fromEntries(list.map((c) => [c.name, c]));
    expect(byName.password.publicSignals).toEqual(['commitment']);
    expect(byName.password.privateInputs).toEqual(['pw_lo', 'pw_hi', 'salt']);
    expect(byName.preimage.publicSignals).toEqual(['hash']);
    expect(byName.range.publicSignals).toEqual(['commitment', 'min', 'max']);
    expect(byName.range.publicInputs).toEqual(['min', 'max']);
    expect(byName.membership.publicSignals).toEqual(['root']);
    expect(byName.membership.inputs.find((i) => i.name === 'pathElements')?.length).toBe(20);
    for (const c of list) {
      expect(c.constraints).toBeGreaterThan(0);
      expect(c.artifacts).toEqual({ wasm: `${c.name}.wasm`, zkey: `${c.name}.zkey`, vkey: 'verification_key.json' });
    }
    expect(NAMES).toContain(DEFAULT_CIRCUIT);
  });

  it('rejects unknown circuits and artifacts with INVALID_INPUT', () => {
    expect(code(() => getCircuit('nope'))).toBe('INVALID_INPUT');
    expect(code(() => getCircuit('../password'))).toBe('INVALID_INPUT');
    expect(code(() => getCircuit('__proto__'))).toBe('INVALID_INPUT');
    expect(code(() => artifactPath('password', 'r1cs' as never))).toBe('INVALID_INPUT');
    expect(code(() => artifactPath('password', 'constructor' as never))).toBe('INVALID_INPUT');
  });

  it('records the sha256 and size of every artifact', () => {
    for (const name of NAMES) {
      const m = getCircuit(name);
      expect(m.ptauPower).toBe(13);
      for (const kind of ['wasm', 'zkey', 'vkey'] as const) {
        const file = artifactPath(name, kind);
        expect(file).toBe(join(circuitsDir(), name, m.artifacts[kind].file));
        expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(m.artifacts[kind].sha256);
        expect(statSync(file).size).toBe(m.artifacts[kind].bytes);
      }
    }
  });

  it('honours CIRCUITS_DIR', () => {
    process.env.CIRCUITS_DIR = REPO_ARTIFACTS;
    expect(artifactPath('preimage', 'vkey')).toBe(join(REPO_ARTIFACTS, 'preimage', 'verification_key.json'));
    process.env.CIRCUITS_DIR = join(REPO_ARTIFACTS, 'does-not-exist');
    expect(() => listCircuits()).toThrow(/no circuit artifacts/);
  });
});
