import type { Intent } from '../intent-types.ts';
import { shroudCommand } from '../commands.ts';

/** The ZK toolkit. */
export const toolkitIntents: Intent[] = [
  {
    id: 'poseidon',
    doc: 'docs/zk.md#zk-toolkit-apizk-toolkit',
    test: /\bposeidon\b/i,
    terms: 'hash poseidon zk-toolkit',
    route: ['POST', '/api/zk-toolkit/hash/poseidon'],
    build: (s) => {
      const inputs = s.numbers.slice(0, 16);
      return {
        lead: 'Poseidon hashes BN254 field elements (decimal numbers, 1–16 inputs); the command below computes it.',
        suggestions: [{ command: shroudCommand('toolkit hash', ['poseidon', ...(inputs.length ? inputs : ['1', '2'])]), description: 'Poseidon hash' }],
      };
    },
  },
  {
    id: 'mimc',
    doc: 'docs/zk.md#zk-toolkit-apizk-toolkit',
    test: /\bmimc\b/i,
    terms: 'hash mimc mimc7 key',
    route: ['POST', '/api/zk-toolkit/hash/mimc'],
    build: (s) => ({
      lead: 'MiMC7 (91 rounds) hashes a field element with an optional key; the command below computes it.',
      suggestions: [{ command: shroudCommand('toolkit hash', ['mimc', s.numbers[0] ?? '12', s.numbers[1] ?? '0']), description: 'MiMC hash' }],
    }),
  },
  {
    id: 'pedersen',
    doc: 'docs/zk.md#zk-toolkit-apizk-toolkit',
    test: /\bpedersen\b/i,
    terms: 'hash pedersen encoding',
    route: ['POST', '/api/zk-toolkit/hash/pedersen'],
    build: (s, ctx) => {
      const text = /["'`]([A-Za-z0-9 _.-]{1,64})["'`]/.exec(ctx.message)?.[1] ?? s.numbers[0] ?? 'Hello';
      // The command joins its words with single spaces: the text goes in as its words.
      return {
        lead: 'The Pedersen hash takes bytes (UTF-8 text or 0x hex, 1–256 bytes); the command below computes it.',
        suggestions: [{ command: shroudCommand('toolkit hash', ['pedersen', ...text.trim().split(/\s+/)]), description: 'Pedersen hash' }],
      };
    },
  },
  {
    id: 'shamir',
    doc: 'docs/zk.md#zk-toolkit-apizk-toolkit',
    test: /\bshamir\b|\bsplit\b.*\bsecret\b|\bsecret shar/i,
    terms: 'shamir split combine threshold shares',
    route: ['POST', '/api/zk-toolkit/shamir/split'],
    build: (s, ctx) => {
      const [secret, a, b] = s.numbers;
      const nums = [a, b]
        .map(Number)
        .filter((n) => n >= 2 && n <= 255)
        .sort((x, y) => x - y);
      const threshold = nums[0] ?? 3;
      const shares = nums[1] ?? Math.max(5, threshold);
      return {
        lead: `Split the secret into ${shares} shares, any ${threshold} of which recover it (\`shroud toolkit shamir combine\`).`,
        suggestions: [{ command: shroudCommand('toolkit shamir', ['split', secret ?? '<secret>', threshold, shares]), description: 'Shamir split' }],
      };
    },
  },
  {
    id: 'field',
    doc: 'docs/zk.md#zk-toolkit-apizk-toolkit',
    test: /\b(field|modular|mod p)\b.*\b(add|sub|subtract|mul|multiply|div|divide|inverse|inv|sqrt|pow|power)\b|\b(add|sub|subtract|mul|multiply|div|divide|inverse|inv|sqrt|pow|power)\b.*\bfield\b/i,
    terms: 'field add sub mul div inv sqrt pow BN254 prime',
    route: ['POST', '/api/zk-toolkit/field/add'],
    build: (s, ctx) => {
      const op = /\bsub|subtract/i.test(ctx.message)
        ? 'sub'
        : /\bmul|multiply/i.test(ctx.message)
          ? 'mul'
          : /\bdiv/i.test(ctx.message)
            ? 'div'
            : /\binv/i.test(ctx.message)
              ? 'inv'
              : /\bsqrt/i.test(ctx.message)
                ? 'sqrt'
                : /\bpow/i.test(ctx.message)
                  ? 'pow'
                  : 'add';
      const [a = '1', b = '2'] = s.numbers;
      const values = op === 'inv' || op === 'sqrt' ? [a] : [a, b];
      return {
        lead: `Field ${op} works modulo the BN254 scalar prime, on decimal numbers below it; the command below computes it.`,
        suggestions: [{ command: shroudCommand('toolkit field', [op, ...values]), description: `field ${op}` }],
      };
    },
  },
];
