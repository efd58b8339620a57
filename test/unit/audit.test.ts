import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { allowlistProblems, unallowed } from '../../.ci/audit.mjs';

/** The dependency audit's verdict over an `npm audit --json` report (the shape npm 10/11 prints). */
const report = {
  vulnerabilities: {
    lodash: {
      severity: 'critical',
      via: [{ source: 1, url: 'https://github.com/advisories/GHSA-aaaa', severity: 'critical', title: 'Prototype pollution', range: '<4.17.21' }],
    },
    minimist: { severity: 'moderate', via: [{ source: 2, url: 'https://github.com/advisories/GHSA-bbbb', severity: 'moderate', title: 'x' }] },
    'uses-lodash': { severity: 'critical', via: ['lodash'] },
  },
};

describe('npm run audit', () => {
  it('fails on a high or critical advisory that the allow-list does not name, once per advisory', () => {
    expect(unallowed(report, { allow: [] })).toEqual([
      { package: 'lodash', severity: 'critical', advisory: 'https://github.com/advisories/GHSA-aaaa', title: 'Prototype pollution', range: '<4.17.21' },
    ]);
  });

  it('passes an allowed one, and ignores moderate ones', () => {
    expect(
      unallowed(report, {
        allow: [{ advisory: 'https://github.com/advisories/GHSA-aaaa', package: 'lodash', reason: 'only reached with trusted input at build time' }],
      }),
    ).toEqual([]);
  });

  it('refuses an allow-list entry without a reason', () => {
    expect(allowlistProblems({ allow: [{ advisory: 'x', package: 'y' }] })).toHaveLength(1);
    expect(allowlistProblems({ allow: [{ advisory: 'x', package: 'y', reason: 'not reachable from any handler' }] })).toHaveLength(0);
  });
});
