import { describe, expect, it } from 'vitest';
import { commands } from '#lib/cli/commands.ts';
import { fitSize, StreamWrapper, visible, wrapLine, wrapText } from '#lib/web/layout.ts';
import { columnWidths, helpText, renderOutput } from '#lib/web/shell.ts';

const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
const widest = (s: string) => Math.max(...s.split('\n').map(visible));

describe('the browser terminal fitted to its window', () => {
  it('fits columns and rows of the cell size into the box, leaving the scrollbar', () => {
    expect(fitSize({ width: 1264, height: 884 }, { width: 8.4, height: 17 }, 14)).toEqual({ cols: 148, rows: 52 });
    expect(fitSize({ width: 784, height: 584 }, { width: 8.4, height: 17 }, 14)).toEqual({ cols: 91, rows: 34 });
    expect(fitSize({ width: 100, height: 40 }, { width: 8.4, height: 17 })).toEqual({ cols: 20, rows: 5 }); // a floor
    expect(fitSize({ width: 800, height: 600 }, { width: 0, height: 0 })).toEqual({ cols: 80, rows: 24 }); // not measured yet
  });

  it('breaks lines at spaces, never inside a word unless the word is longer than a line', () => {
    const text = 'the quick brown fox jumps over the lazy dog';
    expect(wrapLine(text, 12)).toEqual(['the quick', 'brown fox', 'jumps over', 'the lazy dog']);
    expect(wrapLine('abcdefghijklmnop qr', 6)).toEqual(['abcdef', 'ghijkl', 'mnop', 'qr']);
    expect(wrapLine('short', 80)).toEqual(['short']);
    // colour sequences take no room and are never cut
    expect(wrapLine('\x1b[36mkey\x1b[0m  one two three', 12)).toEqual(['\x1b[36mkey\x1b[0m  one two', 'three']);
  });

  it('hangs continuation lines under the value of `key  value` lines (help, fields)', () => {
    const help = helpText(commands);
    const text = wrapText(help, 60);
    expect(widest(text)).toBeLessThanOrEqual(60);
    const lines = text.split('\n');
    const upload = lines.findIndex((l) => l.startsWith('  upload '));
    const valueAt = lines[upload]!.indexOf('encrypt');
    expect(lines[upload + 1]!.slice(0, valueAt).trim()).toBe(''); // continues under its value
    for (const word of help.split(/\s+/).filter((w) => w.length < 30)) expect(text).toContain(word); // no word cut
  });

  it('breaks streamed text at spaces as it arrives, holding only the unfinished word', () => {
    let cols = 10;
    const w = new StreamWrapper(() => cols);
    let out = w.write('hello wor');
    expect(out).toBe('hello '); // "wor" may go on
    out += w.write('ld again');
    out += w.write(' and\n  indented');
    out += w.flush();
    expect(out.split('\n')).toEqual(['hello ', 'world ', 'again and', '  indented']);
    cols = 80;
    expect(new StreamWrapper(() => cols).write('a b ') + '').toBe('a b ');
  });
});

describe('tables fitted to the width', () => {
  const files = {
    data: [],
    table: {
      columns: ['id', 'name', 'size', 'created', 'cid'],
      rows: [
        [
          '3f1c2a9e-8d1b-4c8e-9a43-6f2d1e0b7c55',
          'quarterly report final.pdf',
          '1.2 MiB',
          '2026-11-27 19:04:51',
          'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi',
        ],
        ['0b7c55aa-1111-4c8e-9a43-6f2d1e0b7c55', 'notes.bin', '39.1 KiB', '2026-11-26 08:00:00', 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku'],
      ],
    },
  };

  it('keeps a table that fits as it is; narrows the widest columns to fit; dates and ids never break', () => {
    expect(renderOutput(files, false, 400)).toBe(renderOutput(files, false));
    for (const cols of [148, 120, 100]) {
      const text = plain(renderOutput(files, false, cols));
      expect(widest(text), `${cols}:\n${text}`).toBeLessThanOrEqual(cols);
      expect(text).toContain('2026-11-27 19:04:51');
      expect(text).toContain('2026-11-26 08:00:00');
      expect(text).toContain('3f1c2a9e-8d1b-4c8e-9a43-6f2d1e0b7c55');
      expect(text.split('\n')[0]).toMatch(/^id\s+name\s+size\s+created\s+cid$/);
    }
  });

  it('shows rows as records when columns cannot fit, values still whole', () => {
    const text = plain(renderOutput(files, false, 50));
    expect(widest(text)).toBeLessThanOrEqual(50);
    expect(plain(renderOutput(files, false, 91))).toMatch(/^id\s+3f1c/m); // ids kept whole leave too little for the rest
    expect(text).toMatch(/^id\s+3f1c2a9e-8d1b-4c8e-9a43-6f2d1e0b7c55$/m);
    expect(text).toMatch(/^created\s+2026-11-27 19:04:51$/m);
    expect(text).toContain('\n\nid ');
  });

  it('column widths: the wide ones share what is left, none below its natural width when it fits', () => {
    expect(columnWidths([36, 26, 8, 19, 59], 200)).toEqual([36, 26, 8, 19, 59]);
    const w = columnWidths([36, 26, 8, 19, 59], 100)!;
    expect(w.reduce((a, b) => a + b, 0) + 8).toBeLessThanOrEqual(100);
    expect(w[2]).toBe(8);
    expect(w[3]).toBe(19);
    expect(columnWidths([36, 26, 8, 19, 59], 50)).toBeNull();
  });

  it("breaks a field's long value under its value, not under its key", () => {
    const text = plain(
      renderOutput(
        {
          data: {},
          fields: [
            ['link', 'http://localhost:3000/share/' + 'A'.repeat(43)],
            ['expires', '2026-11-28T19:04:51.000Z'],
          ],
        },
        false,
        40,
      ),
    );
    expect(widest(text)).toBeLessThanOrEqual(40);
    const [first, second] = text.split('\n');
    expect(first).toMatch(/^link {5}http/);
    expect(second).toMatch(/^ {9}\S/);
  });
});
