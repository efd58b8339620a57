import { describe, expect, it } from 'vitest';
import { groupPids, isLoopback, listeners } from '../support/listeners.ts';
import { sharedNpmStart } from '../support/npm-start.ts';

/**
 * Issue 36, 7: every server `npm start` embeds — the gateway, DynamoDB Local (Java), the local
 * S3 and its three replica targets, the embedded L1, the local OpenID provider — listens on
 * loopback only. Read from /proc for the whole process group, so a server added later is checked
 * too.
 */
describe('embedded servers', () => {
  it('npm start: every listening socket of its processes is on 127.0.0.1 or ::1', { timeout: 180_000 }, async () => {
    const rt = await sharedNpmStart(); // the run's one (test/support/shared-npm-start.ts)
    const found = listeners(groupPids(rt.pgid));
    const ports = new Set(found.map((l) => l.port));
    // The gateway, DynamoDB Local, four S3 servers, the L1 and the OpenID provider at least.
    expect(ports.has(Number(new URL(rt.url).port))).toBe(true);
    expect(
      found.some((l) => l.command.startsWith('java')),
      JSON.stringify(found),
    ).toBe(true);
    expect(ports.size, JSON.stringify(found)).toBeGreaterThanOrEqual(8);
    expect(found.filter((l) => !isLoopback(l.address))).toEqual([]);
  });
});
