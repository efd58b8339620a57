import { afterAll, describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { isInternal, isWholeSentence, RetrievalBackend } from '#lib/ai/backends/retrieval.ts';
import type { BackendRequest } from '#lib/ai/backends/port.ts';
import { isSafeCommand } from '#lib/ai/commands.ts';
import { isPagePassage } from '#lib/ai/corpus.ts';
import { docsIndex } from '#lib/ai/docs.ts';
import type { Citation } from '#lib/ai/events.ts';
import { golden } from './golden.ts';

/**
 * The retrieval backend against the golden set. The caller's records come from a fixed tool
 * function here (a wallet `main`, two files): the tools' scoping is tested over HTTP in
 * test/api/ai.test.ts; this checks what is cited and what is suggested.
 */
const BASE = 'http://localhost:3000';
const backend = new RetrievalBackend(docsIndex);
const records: Record<string, unknown> = {
  list_wallets: [
    { id: 'w-main', chain: 'a', name: 'main', address: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', isActive: true },
    { id: 'w-bmain', chain: 'b', name: 'bmain', address: '0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7', isActive: true },
  ],
  wallet_balances: [
    {
      id: 'w-main',
      chain: 'a',
      name: 'main',
      address: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
      isActive: true,
      symbol: 'SOL',
      balance: '2.5',
      compressed: '0.5',
    },
    {
      id: 'w-bmain',
      chain: 'b',
      name: 'bmain',
      address: '0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7',
      isActive: true,
      symbol: 'STRK',
      balance: '12.5',
    },
  ],
  list_files: [
    { id: 'f-newest', filename: 'notes.txt.enc', size: 10, createdAt: '2026-11-23T10:00:00Z' },
    { id: 'f-holiday', filename: 'holiday.jpg.enc', size: 20, createdAt: '2026-11-22T10:00:00Z' },
  ],
  proof_history: [{ id: 'p-1', type: 'stark', action: 'generate', result: 'valid', createdAt: '2026-11-23T08:00:00Z' }],
  share_links: [
    {
      id: '0mhx0a1b2c3d4e5f6a7b8',
      fileId: 'f-holiday',
      filename: 'holiday.jpg.enc',
      createdAt: '2026-11-23T09:00:00Z',
      expiresAt: '2026-11-24T09:00:00Z',
      status: 'active',
      accessCount: 2,
    },
  ],
  bridge_transfers: [
    {
      id: '0b7c2f4e-1d2a-4c3b-9e8f-7a6b5c4d3e2f',
      token: 'SOL',
      amount: '2',
      status: 'submitted',
      sourceTxHash: '5srcTx',
      destTxHash: null,
      createdAt: '2026-11-23T10:00:00Z',
      updatedAt: '2026-11-23T10:01:00Z',
    },
  ],
};

async function answer(q: string) {
  const req: BackendRequest = {
    message: q,
    history: [],
    baseUrl: BASE,
    hasRoute: (m, p) => routes.some((r) => r.method === m && r.path === p),
    callTool: async (name) => ({ name, summary: 'fixed', data: records[name] }),
  };
  const citations: Citation[] = [];
  const suggestions: string[] = [];
  let text = '';
  for await (const e of backend.answer(req)) {
    if (e.type === 'citation') citations.push(e.citation);
    if (e.type === 'suggestion') suggestions.push(e.command);
    if (e.type === 'delta') text += e.text;
  }
  return { citations, suggestions, text };
}

/** What a citation is compared by: a page's link (`docs/storage.md#…`), a route, or a command. */
const placeOf = (c: Citation) => (c.document === 'route table' ? `route:${c.section}` : c.document === 'shroud CLI' ? `command:${c.section}` : c.link);
const rows: { q: string; citeHit: boolean; citePrecision: number; suggestOk: boolean; says: boolean }[] = [];

describe('the retrieval backend on the golden set', () => {
  it(`has at least 80 questions (${golden.length})`, () => expect(golden.length).toBeGreaterThanOrEqual(80));

  for (const g of golden) {
    it(g.q, async () => {
      const a = await answer(g.q);
      expect(a.text.length).toBeGreaterThan(40);
      if (g.text) expect(a.text).toContain(g.text);
      // The answer itself: the caller's values stated, and only whole sentences (a table row whole, as a line),
      // no route list in place of an answer, no operator's setting.
      for (const v of g.says ?? []) expect(a.text, `says ${v}`).toContain(v);
      if (g.says?.length) expect(a.text, 'an answer of values, not a route list').not.toMatch(/^• (GET|POST|PUT|PATCH|DELETE) \/api/m);
      for (const line of a.text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)) {
        expect(line.startsWith('• ') || isWholeSentence(line), `a fragment: ${JSON.stringify(line)}`).toBe(true);
        expect(line, 'cut mid-sentence').not.toMatch(/…$/);
        expect(isInternal(line), `an internal setting: ${line}`).toBe(false);
      }
      const pages = a.citations.filter(isPagePassage);
      const relevant = pages.filter((c) => g.cite.includes(placeOf(c)));
      const routeCited = a.citations.filter((c) => c.document === 'route table');
      const routeRelevant = routeCited.filter((c) => g.suggest && a.suggestions.some((s) => s.includes(c.section.split(' ')[1]!.replace(/:\w+.*$/, ''))));
      // A command's help is relevant when the answer suggests that command.
      const helpRelevant = a.citations.filter(
        (c) => c.document === 'shroud CLI' && a.suggestions.some((s) => s === c.section || s.startsWith(`${c.section} `)),
      );
      const citeHit = relevant.length > 0;
      const citePrecision = a.citations.length ? (relevant.length + routeRelevant.length + helpRelevant.length) / a.citations.length : 0;
      const suggestOk =
        g.suggest === null
          ? a.suggestions.length === 0
          : a.suggestions.some(
              (s) =>
                (g.suggest!.startsWith('shroud') ? s === g.suggest || s.startsWith(`${g.suggest} `) : s.includes(g.suggest!)) &&
                (g.values ?? []).every((v) => s.includes(v)),
            );
      // A `shroud` suggestion cites that command's help.
      if (a.suggestions.some((s) => s.startsWith('shroud ')))
        expect(
          a.citations.some((c) => c.document === 'shroud CLI'),
          'the command help is cited',
        ).toBe(true);
      rows.push({ q: g.q, citeHit, citePrecision, suggestOk, says: (g.says ?? []).every((v) => a.text.includes(v)) });
      for (const s of a.suggestions) expect(isSafeCommand(s, BASE), s).toBe(true);
      expect(suggestOk, `suggestions: ${JSON.stringify(a.suggestions)}`).toBe(true);
      expect(citeHit, `cited: ${a.citations.map(placeOf).join(', ')}`).toBe(true);
    });
  }
});

afterAll(() => {
  if (!rows.length) return;
  const hit = rows.filter((r) => r.citeHit).length / rows.length;
  const precision = rows.reduce((s, r) => s + r.citePrecision, 0) / rows.length;
  const suggest = rows.filter((r) => r.suggestOk).length / rows.length;
  const stating = rows.filter((r, i) => golden[i]?.says?.length);
  const says = stating.filter((r) => r.says).length;
  console.log(
    `golden set (${rows.length} questions): citation recall (an expected section cited) ${(hit * 100).toFixed(1)} %, ` +
      `citation precision ${(precision * 100).toFixed(1)} %, suggestions right ${(suggest * 100).toFixed(1)} %, ` +
      `the values stated in ${says} of ${stating.length} answers about the caller's own records`,
  );
});
