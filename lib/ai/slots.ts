/**
 * The user's values read out of a message. Each value is checked against a strict pattern before
 * it may appear in a suggested command, so nothing typed (or stored in a file name) can add shell
 * syntax to a command.
 */
export interface Slots {
  amount?: number;
  /** A token symbol that came with the amount (`SOL`, `USDC`). */
  unit?: string;
  /** Quoted or `named X` / `called X` words. */
  name?: string;
  username?: string;
  uuid?: string;
  /** Base58 addresses (chain A: mints, recipients). */
  addresses: string[];
  chain?: 'a' | 'b';
  hours?: number;
  /** Plain decimal numbers (toolkit inputs). */
  numbers: string[];
  provider?: string;
}

const SAFE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
export const isSafeName = (s: string): boolean => SAFE_NAME.test(s);

export function parseSlots(message: string): Slots {
  const slots: Slots = { addresses: [], numbers: [] };
  const amount = /(?:^|[\s$])(\d+(?:\.\d+)?)\s*(sol|lamports?|tokens?|usdc|usdt|eth|strk|units?|coins?)?\b/i.exec(message);
  if (amount) {
    slots.amount = Number(amount[1]);
    if (amount[2]) slots.unit = amount[2].toUpperCase();
  }
  // A quoted name counts only when all of it is a plain word; `named "rm -rf"` names nothing.
  const named =
    /\b(?:named|called|name(?:d)? it|as)\s+(?:(["'`])([^"'`]{1,64})\1|([A-Za-z0-9_.-]{1,64}))/i.exec(message) ?? /(["'`])([^"'`]{1,64})\1/.exec(message);
  const name = named ? (named[2] ?? named[3]) : undefined;
  // `as a new user`, `called the …`: an article names nothing.
  if (name && isSafeName(name) && !/^(a|an|the|my|your)$/i.test(name)) slots.name = name;
  const user = /\b(?:user(?:name)?|account)\s+["'`]?([A-Za-z0-9_.-]{3,32})["'`]?/i.exec(message);
  if (user && !/^(named|called|with|and|for)$/i.test(user[1]!)) slots.username = user[1];
  const uuid = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i.exec(message);
  if (uuid) slots.uuid = uuid[0].toLowerCase();
  for (const m of message.matchAll(/\b[1-9A-HJ-NP-Za-km-z]{32,44}\b/g))
    if (/\d/.test(m[0]) && /[a-z]/.test(m[0]) && /[A-Z]/.test(m[0])) slots.addresses.push(m[0]);
  if (/\bchain[ -]?b\b|starknet/i.test(message)) slots.chain = 'b';
  else if (/\bchain[ -]?a\b|solana/i.test(message)) slots.chain = 'a';
  const duration = /\b(\d{1,4})\s*(hours?|hrs?|h|days?|d|minutes?|mins?)\b/i.exec(message);
  if (duration) {
    const n = Number(duration[1]);
    const unit = duration[2]!.toLowerCase();
    slots.hours = unit.startsWith('d') ? n * 24 : unit.startsWith('m') ? Math.max(1, Math.round(n / 60)) : n;
  }
  for (const m of message.matchAll(/(?<![\w.-])\d{1,78}(?![\w.])/g)) slots.numbers.push(m[0]);
  const provider = /\b(google|github|discord|x)\b/i.exec(message);
  if (provider && (provider[1]!.toLowerCase() !== 'x' || /\bwith x\b|\bx account\b|\bx login\b/i.test(message))) slots.provider = provider[1]!.toLowerCase();
  return slots;
}
