/**
 * The documentation the `retrieval` backend answers from: README.md and docs/*.md cut into their
 * sections (long ones into paragraphs that keep their section's title), one passage per route of
 * the route table, and one per `shroud` command's help. Built from what the repository holds,
 * never from a copy, and indexed at build time (docs-index.generated.ts; a test rebuilds it and
 * fails when it is stale).
 */
export interface Passage {
  id: string;
  /** A page (`README.md`, `docs/storage.md`), `route table` or `shroud CLI`. */
  document: string;
  /** The heading path, `Encrypted storage (/api/storage) › Presigned uploads`. */
  section: string;
  /** Where to read it: `docs/storage.md#encrypted-storage-apistorage`. */
  link: string;
  text: string;
}

/** What the corpus needs of a route row (lib never imports the table itself: it is handed in). */
export interface RouteSummary {
  method: string;
  path: string;
  group: string;
  auth: string;
  rateLimit: number;
  idempotent?: boolean;
}

const MAX_PASSAGE = 1200;

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Splits a long section at blank lines (never inside a code block), packing paragraphs up to MAX_PASSAGE. */
function chunks(body: string): string[] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  let fenced = false;
  for (const line of body.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && line.trim() === '' && current.length) {
      paragraphs.push(current.join('\n'));
      current = [];
    } else if (line.trim() !== '' || fenced) current.push(line);
  }
  if (current.length) paragraphs.push(current.join('\n'));
  const out: string[] = [];
  let pack = '';
  for (const p of paragraphs) {
    // Table and bullet paragraphs are split at their rows/items when too long on their own.
    const pieces = p.length > MAX_PASSAGE ? splitLong(p) : [p];
    for (const piece of pieces) {
      if (pack && pack.length + piece.length > MAX_PASSAGE) {
        out.push(pack);
        pack = '';
      }
      pack = pack ? `${pack}\n\n${piece}` : piece;
    }
  }
  if (pack) out.push(pack);
  return out;
}

function splitLong(p: string): string[] {
  const lines = p.split('\n');
  const isTable = lines[0]!.startsWith('|');
  const header = isTable ? lines.slice(0, 2).join('\n') : '';
  const rows = isTable ? lines.slice(2) : p.split(/\n(?=- |\d+\. )/);
  const out: string[] = [];
  let pack = header;
  for (const row of rows) {
    if (pack.length + row.length > MAX_PASSAGE && pack !== header) {
      out.push(pack);
      pack = header;
    }
    pack = pack ? `${pack}\n${row}` : row;
  }
  if (pack && pack !== header) out.push(pack);
  return out;
}

/** A documentation page: its path from the repository's root and its Markdown. */
export interface DocPage {
  file: string;
  text: string;
}

/** True for a passage of a documentation page (not a route row or a command's help). */
export const isPagePassage = (p: { document: string }): boolean => p.document.endsWith('.md');

/** A page without the indexes a test generates into it (`<!-- index:NAME:begin -->`: the routes have passages of their own) and without comments. */
const withoutGenerated = (text: string): string =>
  text.replace(/<!-- index:([\w-]+):begin -->[\s\S]*?<!-- index:\1:end -->/g, '').replace(/<!--[\s\S]*?-->\n?/g, '');

export function pagePassages({ file, text }: DocPage): Passage[] {
  const out: Passage[] = [];
  const lines = withoutGenerated(text).split('\n');
  let h2 = 'Shroud';
  let h3: string | undefined;
  let anchor = '';
  let body: string[] = [];
  let fenced = false;
  const flush = () => {
    const text = body.join('\n').trim();
    body = [];
    if (!text) return;
    const section = h3 ? `${h2} › ${h3}` : h2;
    chunks(text).forEach((chunk, i) => {
      out.push({ id: `${file}:${anchor || 'top'}:${i}`, document: file, section, link: `${file}${anchor ? `#${anchor}` : ''}`, text: chunk });
    });
  };
  for (const line of lines) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^(#{1,3}) (.+)$/.exec(line);
    if (m) {
      flush();
      if (m[1] === '#') {
        h2 = m[2]!;
        h3 = undefined;
      } else if (m[1] === '##') {
        h2 = m[2]!;
        h3 = undefined;
      } else h3 = m[2]!;
      anchor = anchorOf(m[2]!);
      continue;
    }
    body.push(line);
  }
  flush();
  return out;
}

/** One passage per route: the row, and every documentation line that names the route's path. */
export function routePassages(routes: readonly RouteSummary[], pages: readonly DocPage[]): Passage[] {
  const lines = pages.flatMap((p) => withoutGenerated(p.text).split('\n'));
  return routes.map((r) => {
    const tail = r.path.replace(/^\/api\/[^/]+/, '');
    const mentions = lines.filter((l) => l.includes(r.path) || (tail.length > 3 && l.includes(`\`${tail.slice(1)}\``) && l.startsWith('|'))).slice(0, 4);
    const auth = r.auth === 'session' ? 'session required' : r.auth === 'none' ? 'public (no session)' : 'session optional';
    const text = [
      `${r.method} ${r.path}: group ${r.group}, ${auth}, ${r.rateLimit} requests per minute${r.idempotent ? ', takes Idempotency-Key' : ''}.`,
      ...mentions,
    ].join('\n');
    return {
      id: `route:${r.method} ${r.path}`,
      document: 'route table',
      section: `${r.method} ${r.path}`,
      link: `functions/routes.ts (npm run -s routes)`,
      text,
    };
  });
}

/** What the corpus needs of a `shroud` command: its name and its `--help` text (handed in, like the routes). */
export interface CommandHelp {
  name: string;
  help: string;
}

/** One passage per `shroud` command: its `--help`, so an answer can cite the command to type. */
export const commandPassages = (commands: readonly CommandHelp[]): Passage[] =>
  commands.map((c) => ({
    id: `command:${c.name}`,
    document: 'shroud CLI',
    section: `shroud ${c.name}`,
    link: `shroud ${c.name} --help`,
    text: `shroud ${c.help}`,
  }));

export const buildCorpus = (pages: readonly DocPage[], routes: readonly RouteSummary[], commands: readonly CommandHelp[] = []): Passage[] => [
  ...pages.flatMap(pagePassages),
  ...routePassages(routes, pages),
  ...commandPassages(commands),
];
