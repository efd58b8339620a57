import MiniSearch, { type Options } from 'minisearch';
import type { Passage } from './corpus.ts';

/**
 * BM25 (MiniSearch's BM25+) over the documentation passages. The same options index at build
 * time and load at cold start, so the terms line up.
 */
const STOP = new Set(
  'a an and are as at be by can do does for from how i if in into is it its me my of on or so that the their then there these this to was what when where which who why will with you your we our us should would could please want need'.split(
    ' ',
  ),
);

/** A light stemmer: enough that "uploading", "uploads" and "uploaded" meet "upload". */
export function stem(term: string): string {
  if (term.length <= 4 || /\d/.test(term)) return term;
  for (const [suffix, keep] of [
    ['ies', 'y'],
    ['ing', ''],
    ['ed', ''],
    ['es', ''],
    ['s', ''],
  ] as const) {
    if (term.endsWith(suffix) && term.length - suffix.length >= 3 && !(suffix === 's' && term.endsWith('ss'))) return term.slice(0, -suffix.length) + keep;
  }
  return term;
}

export const processTerm = (term: string): string | null => {
  const t = term.toLowerCase();
  if (t.length < 2 || STOP.has(t)) return null;
  return stem(t);
};

export const searchOptions: Options<Passage> = {
  fields: ['section', 'text'],
  storeFields: ['document', 'section', 'link', 'text'],
  processTerm,
  searchOptions: { boost: { section: 2.5 }, prefix: (t) => t.length >= 5, fuzzy: (t) => (t.length >= 7 ? 0.15 : 0), combineWith: 'OR' },
};

export function buildIndex(passages: Passage[]): MiniSearch<Passage> {
  const ms = new MiniSearch<Passage>(searchOptions);
  ms.addAll(passages);
  return ms;
}

export const loadIndex = (json: string): MiniSearch<Passage> => MiniSearch.loadJSON<Passage>(json, searchOptions);

export interface Hit extends Passage {
  score: number;
  terms: string[];
}

export function search(index: MiniSearch<Passage>, query: string, limit = 5, filter?: (p: { link: string; document: string }) => boolean): Hit[] {
  const results = index.search(query, filter ? { filter: (r) => filter({ link: r.link as string, document: r.document as string }) } : undefined);
  return results.slice(0, limit).map((r) => ({
    id: String(r.id),
    document: r.document as string,
    section: r.section as string,
    link: r.link as string,
    text: r.text as string,
    score: r.score,
    terms: r.terms,
  }));
}
