import type MiniSearch from 'minisearch';
import type { Passage } from './corpus.ts';
import { DOCS_INDEX_BASE64 } from './docs-index.generated.ts';
import { loadIndex } from './search.ts';

/** The documentation index built at build time (test/unit/ai/docs-index.test.ts regenerates it), loaded once per instance. */
let index: MiniSearch<Passage> | undefined;
export const docsIndex = (): MiniSearch<Passage> => (index ??= loadIndex(Buffer.from(DOCS_INDEX_BASE64, 'base64').toString('utf8')));
