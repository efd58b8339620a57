/** API.md's three response styles. */
export type Envelope = 'data' | 'flat' | 'auth';

export interface Group {
  /** The envelope API.md gives the group (`flat` where it shows none). */
  envelope: Envelope;
  /** Requests per minute per client (the user when signed in, else the source IP). */
  rateLimit: number;
}

/** The route groups' settings. Limits from API.md where it gives one; the others are the project's choice (docs/architecture.md, rate limits). */
export const groups = {
  init: { envelope: 'flat', rateLimit: 120 },
  'bug-reports': { envelope: 'flat', rateLimit: 5 },
  auth: { envelope: 'auth', rateLimit: 20 },
  chainb: { envelope: 'flat', rateLimit: 20 },
  zkauth: { envelope: 'data', rateLimit: 60 },
  'zk-toolkit': { envelope: 'data', rateLimit: 200 },
  storage: { envelope: 'flat', rateLimit: 30 },
  wallets: { envelope: 'flat', rateLimit: 50 },
  compression: { envelope: 'flat', rateLimit: 50 },
  attest: { envelope: 'flat', rateLimit: 30 },
  proofs: { envelope: 'flat', rateLimit: 60 },
  bridge: { envelope: 'flat', rateLimit: 10 },
  transfer: { envelope: 'flat', rateLimit: 20 },
  swap: { envelope: 'flat', rateLimit: 30 },
  rewards: { envelope: 'flat', rateLimit: 60 },
  ai: { envelope: 'flat', rateLimit: 20 },
  docs: { envelope: 'flat', rateLimit: 120 },
} as const satisfies Record<string, Group>;

export type GroupName = keyof typeof groups;
