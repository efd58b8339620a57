import type { Intent } from '../intent-types.ts';
import { escapeRe } from '../intent-helpers.ts';
import { shroudCommand, wordOr } from '../commands.ts';
import { groups } from '#lib/http/groups.ts';

/** Register, sign in, rate limits. */
export const accountIntents: Intent[] = [
  {
    id: 'rate-limit',
    doc: 'docs/architecture.md#what-every-route-shares',
    test: /\brate[- ]?limit|\brequests? (per|a|each) minute\b|\bhow many requests\b|\b429\b|\btoo many requests\b/i,
    terms: 'rate limits per group per minute RATE_LIMITED Retry-After',
    build: (_s, ctx) => {
      const named = Object.entries(groups).filter(([g]) => new RegExp(`\\b${escapeRe(g)}\\b`, 'i').test(ctx.message));
      const all = named.length ? named : Object.entries(groups);
      const list = all.map(([g, v]) => `${g} ${v.rateLimit}`).join(', ');
      return {
        lead: `${named.length === 1 ? `The ${named[0]![0]} group allows ${named[0]![1].rateLimit} requests per minute` : `Requests per minute by group: ${list}`}, counted per client (the user when signed in, else the source IP) in fixed 60-second windows; past it the answer is 429 RATE_LIMITED with Retry-After.`,
        suggestions: [],
      };
    },
  },
  {
    id: 'register',
    doc: 'docs/identity.md#identity-and-sessions-apiauth',
    test: /\b(register|sign ?up|create (an |a new )?account|new account)\b/i,
    terms: 'register username password identity zkId',
    route: ['POST', '/api/auth/register'],
    build: (s, ctx) => ({
      lead: `Register with a username and a password: \`shroud register\` asks for the password, makes your identity key pair and encrypts it on your side (createIdentity(password) in lib/client/identity.ts), and sends the identity fields.`,
      suggestions: [
        { command: shroudCommand('register', [wordOr(s.username ?? s.name, '<username>')]), description: 'create the account (it asks for the password)' },
      ],
    }),
  },
  {
    id: 'social-login',
    doc: 'docs/identity.md#social-login-apizkauth',
    test: /\b(log ?in|sign ?in|login)\b.*\b(google|github|discord|oauth|social)\b|\b(google|github|discord|oauth|social)\b.*\b(log ?in|sign ?in|login)\b/i,
    terms: 'social login zkauth provider oauth',
    route: ['GET', '/api/zkauth/login'],
    build: (s) => ({
      lead: `Social login goes through your browser: \`shroud login --provider\` opens the provider's page and waits on 127.0.0.1 for it to come back, then keeps the session.`,
      suggestions: [{ command: shroudCommand('login', [], { provider: s.provider ?? 'github' }), description: `sign in with ${s.provider ?? 'github'}` }],
    }),
  },
  {
    id: 'login',
    doc: 'docs/identity.md#identity-and-sessions-apiauth',
    test: /\b(log ?in|sign ?in|login)\b/i,
    unless: /\b(fail|throttl|lock|brute|why)\w*/i,
    terms: 'login session cookie credentials',
    route: ['POST', '/api/auth/login'],
    build: (s) => ({
      lead: `Log in with your username and password (\`shroud login\` asks for the password); the session is kept for the next commands.`,
      suggestions: [{ command: shroudCommand('login', [wordOr(s.username ?? s.name, '<username>')]), description: 'log in (it asks for the password)' }],
    }),
  },
  {
    id: 'logout',
    doc: 'docs/identity.md#identity-and-sessions-apiauth',
    test: /\b(log ?out|sign ?out)\b/i,
    terms: 'logout session',
    route: ['POST', '/api/auth/logout'],
    build: () => ({
      lead: 'Log out ends the session and forgets it on this machine.',
      suggestions: [{ command: shroudCommand('logout'), description: 'log out' }],
    }),
  },
];

/** Identity proofs on chain B, the session STARK. */
export const identityIntents: Intent[] = [
  {
    id: 'submit-identity-proof',
    doc: 'docs/identity.md#chain-b-identity-proofs-apichainb',
    test: /\b(identity proof|submit[- ]proof|chain ?b proof|prove my identity)\b/i,
    terms: 'submit-proof identity signature nonce timestamp chain B registry',
    route: ['POST', '/api/chainb/submit-proof'],
    build: () => ({
      lead: 'Your identity key, unlocked in the terminal with your account password (it never leaves it), signs a fresh statement and the service records it on chain B and in your proof history; `shroud chainb proof <proofId>` reads it back.',
      suggestions: [{ command: shroudCommand('chainb prove'), description: 'submit an identity proof (it asks for your account password)' }],
    }),
  },
  {
    id: 'stark-proof',
    doc: 'docs/identity.md#social-login-apizkauth',
    test: /\bstark\b/i,
    terms: 'STARK proof zkauth prove session',
    route: ['POST', '/api/zkauth/prove'],
    build: () => ({
      lead: 'A signed-in social-login session gets its STARK proof of the session key (POST /api/zkauth/prove; a client-held key sends its own proof), recorded on chain B; `shroud proofs` shows it and `shroud proofs verify` checks it again.',
      suggestions: [{ command: shroudCommand('proofs prove'), description: 'prove the session key (STARK) and record it on chain B' }],
    }),
  },
];

/** Proof history, bug reports, the session. */
export const historyIntents: Intent[] = [
  {
    id: 'proof-history',
    reports: true,
    doc: 'docs/identity.md#chain-b-identity-proofs-apichainb',
    test: /\b(my )?proof(s)? history\b|\bmy proofs\b|\bproofs (have i|did i)\b/i,
    needs: ['proofs'],
    terms: 'proof history identity stark',
    build: (_s, ctx) => {
      const own = ctx.proofs ?? [];
      const latest = own[0];
      return {
        lead: own.length
          ? `You have ${own.length} recorded proof${own.length === 1 ? '' : 's'} (identity proofs on chain B and STARK session proofs)${latest?.type ? `; the latest is a ${latest.type} proof${latest.createdAt ? ` from ${latest.createdAt}` : ''}` : ''}.`
          : 'You have no recorded proofs yet: identity proofs on chain B and STARK session proofs are recorded when you make them.',
        suggestions: [],
      };
    },
  },
  {
    id: 'bug-report',
    doc: 'docs/architecture.md#the-route-groups',
    test: /\b(report|file)\b.*\bbug\b|\bbug report\b/i,
    terms: 'bug report title description severity',
    route: ['POST', '/api/bug-reports'],
    build: (_s, ctx) => ({
      lead: 'Send a bug report with a title and a description (5 per minute).',
      suggestions: [{ command: shroudCommand('bug', ['<title>', '<what happened>'], { severity: 'medium' }), description: 'report a bug' }],
    }),
  },
  {
    id: 'session',
    doc: 'docs/identity.md#identity-and-sessions-apiauth',
    test: /\b(am i (logged|signed) in|who am i|my session)\b/i,
    terms: 'session authenticated me',
    route: ['GET', '/api/auth/session'],
    build: () => ({
      lead: '`shroud whoami` says who this session is signed in as.',
      suggestions: [{ command: shroudCommand('whoami'), description: 'who you are signed in as' }],
    }),
  },
];
