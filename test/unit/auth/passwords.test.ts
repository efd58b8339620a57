import { describe, expect, it } from 'vitest';
import bcrypt from 'bcryptjs';
import { BCRYPT_COST, hashPassword, verifyPassword } from '#lib/auth/passwords.ts';

describe('passwords', () => {
  it('bcrypt, cost 10; verifies the right password only', async () => {
    const h = await hashPassword('correct horse battery');
    expect(BCRYPT_COST).toBe(10);
    expect(h).toMatch(/^\$2[aby]\$10\$/);
    expect(bcrypt.getRounds(h)).toBe(10);
    expect(await verifyPassword('correct horse battery', h)).toBe(true);
    expect(await verifyPassword('correct horse batterY', h)).toBe(false);
  });

  it('an unknown user costs one cost-10 comparison (dummy hash) and never succeeds', async () => {
    const t = performance.now();
    expect(await verifyPassword('anything at all', undefined)).toBe(false);
    expect(performance.now() - t).toBeGreaterThan(20); // a real bcrypt comparison, not a shortcut
  });
});
