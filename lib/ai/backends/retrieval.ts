import type MiniSearch from 'minisearch';
import { isPagePassage, type Passage } from '../corpus.ts';
import type { Citation, ToolCall } from '../events.ts';
import { shroudCommandName } from '../commands.ts';
import {
  matchIntent,
  parseSlots,
  type BalanceFact,
  type BridgeFact,
  type FileFact,
  type IntentContext,
  type Need,
  type ProofFact,
  type ShareLinkFact,
  type WalletFact,
} from '../intents.ts';
import { processTerm, search, type Hit } from '../search.ts';
import { estimateTokens, type Backend, type BackendEvent, type BackendRequest } from './port.ts';
import { errors } from '#lib/errors.ts';

/** The read-only tool that supplies each kind of the caller's records a task needs. */
const TOOL_OF_NEED: Record<Need, string> = {
  wallets: 'list_wallets',
  balances: 'wallet_balances',
  files: 'list_files',
  proofs: 'proof_history',
  bridges: 'bridge_transfers',
  shares: 'share_links',
};

/**
 * The embedded backend, no model: a task matcher that fills in the command with the user's
 * values (and ids found by the read-only tools), and an answer made of the documentation's best
 * sentences for the question, each passage cited.
 */
const SYNONYMS: [RegExp, string][] = [
  [/\bsol\b|\blamports?\b/i, 'native coin chain A'],
  [/\bsolana\b/i, 'chain A'],
  [/\bstarknet\b/i, 'chain B'],
  [/\bforg[eo]t/i, 'forgotten password cannot be recovered'],
  [/\blimit|too many|429\b/i, 'rate limits per minute RATE_LIMITED'],
  [/\bexpire|expiry\b/i, 'expires expired'],
  [/\b(max(imum)?|largest|biggest|how (big|large))\b.*\b(file|upload)|\bfile size\b/i, '100 MB FILE_TOO_LARGE capped'],
  [/\bnpm\b|\brun (the )?tests?\b|\bstart (the )?(server|api|service)\b|\blocally\b|\bbenchmarks?\b/i, 'npm commands'],
];

const tableRow = /^\|.*\|$/;

/** The passage's units: table rows, bullets and paragraphs with their hard-wrapped lines joined; code left out. */
export function units(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let fenced = false;
  const flush = () => {
    if (current.trim()) out.push(current.trim());
    current = '';
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) {
      fenced = !fenced;
      flush();
      continue;
    }
    if (fenced || (!current && /^ {4}\S/.test(line))) continue; // code, fenced or indented
    if (line.trim() === '' || /^\|[-\s|]+\|$/.test(line)) flush();
    else if (tableRow.test(line) || /^\s*([-*]|\d+\.) /.test(line)) {
      flush();
      current = line;
      if (tableRow.test(line)) flush();
    } else current = current ? `${current} ${line.trim()}` : line;
  }
  flush();
  return out;
}

/** Longer sentences are left out, never cut: an excerpt is whole sentences. */
const MAX_SENTENCE = 320;
/** A table row is a route's or a setting's whole line: longer ones are still one fact. */
const MAX_ROW = 700;

/**
 * What an excerpt never shows: the operators' settings (environment variables such as
 * PRESIGN_SECONDS; error codes such as RATE_LIMITED stay, a user meets them) and the IPFS
 * daemon's internals.
 */
const ERROR_CODES = new Set(Object.values(errors).map((make) => (make as (a: unknown) => { code: string })(['1']).code));
export function isInternal(sentence: string): boolean {
  const settings = sentence.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g) ?? [];
  return settings.some((w) => !ERROR_CODES.has(w)) || /\bkubo\b|\bipfs (daemon|config)\b|\s--[a-z][\w-]*=/i.test(sentence);
}

/** A sentence is whole: it ends with its full stop (or ? or !), after any closing bracket or quote. */
export const isWholeSentence = (s: string) => /[.!?]["')\]`*]*$/.test(s.trim());

/** Sentences (or table rows and bullets) of a passage that share the most terms with the question. */
export function bestSentences(text: string, terms: Set<string>, count: number, rows = true): string[] {
  // Prose split at the sentences' ends (whole ones only); a table row whole, as a line of text.
  const pieces = units(text)
    .filter((u) => rows || !tableRow.test(u))
    .flatMap((u) => (tableRow.test(u) ? [rowAsText(u)] : u.split(/(?<=[.!?])\s+(?=[A-Z`*("])/).map((l) => asText(l.replace(/^\s*([-*]|\d+\.) /, '').trim()))))
    .filter(
      (l) =>
        l.length > 20 &&
        l.length <= (l.startsWith('• ') ? MAX_ROW : MAX_SENTENCE) &&
        (l.startsWith('• ') || isWholeSentence(l)) &&
        !isInternal(l) &&
        !/^#/.test(l),
    );
  const wordsOf = pieces.map(
    (p) =>
      new Set(
        p
          .split(/[^\p{L}\p{N}_-]+/u)
          .map((w) => processTerm(w))
          .filter((w): w is string => !!w),
      ),
  );
  // A term found in few of the passage's sentences says more about which sentence answers.
  const df = new Map<string, number>();
  for (const words of wordsOf) for (const t of terms) if (words.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  const scored = pieces.map((p, i) => {
    let score = 0;
    for (const t of terms) if (wordsOf[i]!.has(t)) score += 1 + 1 / df.get(t)!;
    return { p, i, score: score / Math.sqrt(1 + wordsOf[i]!.size / 12) };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, count)
    .sort((a, b) => a.i - b.i)
    .map((s) => (s.p.startsWith('• ') ? `${s.p}\n` : s.p));
}

/** A Markdown table row as a line: its cells (split at unescaped pipes) joined by dashes. */
const rowAsText = (row: string) =>
  `• ${row
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((c) => asText(c.trim()))
    .filter(Boolean)
    .join(' — ')}`;

/** Markdown as it reads: no emphasis marks, links as their text, code spans as their code, `\|` as `|`. */
export const asText = (s: string) =>
  s
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')
    .replace(/\\\|/g, '|')
    .replace(/`([^`]+)`/g, '$1');

const citationOf = (h: Passage): Citation => ({ document: h.document, section: h.section, link: h.link });

function termsOf(text: string): Set<string> {
  return new Set(
    text
      .split(/[^\p{L}\p{N}_-]+/u)
      .map((w) => processTerm(w))
      .filter((w): w is string => !!w),
  );
}

export class RetrievalBackend implements Backend {
  readonly name = 'retrieval' as const;
  readonly model = 'bm25-minisearch';
  constructor(private readonly index: () => MiniSearch<Passage>) {}

  async available() {
    return true;
  }

  async *answer(req: BackendRequest): AsyncIterable<BackendEvent> {
    const { message } = req;
    const intent = matchIntent(message);
    const slots = parseSlots(message);
    const ctx: IntentContext = { baseUrl: req.baseUrl, hasRoute: req.hasRoute, message };
    const toolCalls: ToolCall[] = [];

    for (const need of intent?.needs ?? []) {
      const name = TOOL_OF_NEED[need];
      const r = await req.callTool(name, {});
      const call: ToolCall = { name, summary: r.summary, data: r.data, untrusted: true };
      toolCalls.push(call);
      yield { type: 'tool', tool: call };
      if (name === 'list_wallets') ctx.wallets = r.data as WalletFact[];
      if (name === 'list_files') ctx.files = r.data as FileFact[];
      if (name === 'bridge_transfers') ctx.bridges = Array.isArray(r.data) ? (r.data as BridgeFact[]) : [];
      if (name === 'share_links') ctx.shares = Array.isArray(r.data) ? (r.data as ShareLinkFact[]) : [];
      if (name === 'wallet_balances') ctx.balances = Array.isArray(r.data) ? (r.data as BalanceFact[]) : [];
      if (name === 'proof_history') ctx.proofs = Array.isArray(r.data) ? (r.data as ProofFact[]) : [];
    }

    const expansion = SYNONYMS.filter(([re]) => re.test(message)).map(([, terms]) => terms);
    const query = [message, intent?.terms ?? '', ...expansion].join(' ');
    const hits = search(this.index(), query, 8);
    // The task's own section first (when the documentation still has it), then the rest by score.
    if (intent?.doc) {
      const own = search(this.index(), query, 2, (p) => p.link === intent.doc);
      hits.unshift(...own.filter((h) => !hits.slice(0, 1).some((x) => x.id === h.id)));
    }
    const terms = termsOf(query);
    const unavailable = intent?.route && !req.hasRoute(intent.route[0], intent.route[1]);

    const parts: string[] = [];
    const suggestions: { command: string; description: string }[] = [];
    if (intent && unavailable) {
      parts.push(
        `This deployment does not serve that yet: the route table has no \`${intent.route![0]} ${intent.route![1]}\` (\`npm run -s routes\` lists what exists).`,
      );
    } else if (intent) {
      const built = intent.build(slots, ctx);
      parts.push(built.lead);
      suggestions.push(...built.suggestions);
    }

    // Explanations come from the documentation pages; a route's own passage is cited with its command.
    // Without a task, one route passage may explain too (its limits, its auth).
    const firstRoute = hits.find((h) => h.document === 'route table');
    const readme = hits.filter((h) => isPagePassage(h) || (!intent && h === firstRoute && hits.indexOf(h) < 3));
    const routeHit = intent?.route ? hits.find((h) => h.document === 'route table' && h.section === `${intent.route![0]} ${intent.route![1]}`) : undefined;
    const explained: Hit[] = [];
    const seen = new Set<string>();
    const used = new Set<string>();
    for (const h of readme) {
      if (explained.length >= 3) break;
      if (seen.has(h.id)) continue;
      seen.add(h.id);
      const sentences = bestSentences(h.text, terms, explained.length === 0 ? 3 : 2, !intent?.reports).filter((x) => !used.has(x));
      if (!sentences.length) continue;
      for (const x of sentences) used.add(x);
      explained.push(h);
      // A table row stands on a line of its own; sentences run on as prose.
      if (explained.length <= 2)
        parts.push(
          sentences
            .map((x) => (x.startsWith('• ') ? `\n${x.trim()}\n` : x))
            .join(' ')
            .replace(/ ?\n ?/g, '\n')
            .replace(/\n+/g, '\n')
            .trim(),
        );
    }
    if (!intent && !explained.length) {
      const top = hits[0];
      if (top) {
        const best = bestSentences(top.text, terms, 3).join(' ');
        parts.push(best || `The closest section is ${JSON.stringify(top.section)} (${top.document}).`);
        explained.push(top);
      } else {
        parts.push(
          "I found nothing about that in the service's documentation. Ask about accounts, files and share links, wallets, compression, proofs or the ZK toolkit.",
        );
      }
    }

    const text = parts.filter(Boolean).join('\n\n');
    // Streamed a sentence at a time, as a model would stream tokens.
    for (const piece of text.match(/[^.!?\n]+[.!?]?\s*|\n+/g) ?? [text]) yield { type: 'delta', text: piece };

    const cited = new Set<string>();
    // Cited: the passages the text was made from, and what documents the command: a `shroud`
    // command's own help, else the route a curl command calls.
    const commandHelp = suggestions
      .map((s) => shroudCommandName(s.command))
      .filter((n): n is string => n !== undefined)
      .flatMap((n) => search(this.index(), `shroud ${n}`, 1, (p) => p.link === `shroud ${n} --help`));
    const documenting = commandHelp.length ? commandHelp.slice(0, 1) : routeHit && !unavailable ? [routeHit] : [];
    for (const h of [...explained.slice(0, 2), ...documenting]) {
      const key = `${h.link}|${h.section}`;
      if (cited.has(key)) continue;
      cited.add(key);
      yield { type: 'citation', citation: citationOf(h) };
    }
    for (const s of suggestions) yield { type: 'suggestion', ...s };
    yield { type: 'usage', inputTokens: estimateTokens(message), outputTokens: estimateTokens(text) };
  }
}
