/**
 * The browser terminal's text to its width (no DOM here, so it is tested in Node): how many
 * columns and rows fit the page, lines broken at spaces (a word longer than a line is the only
 * thing broken inside), continuation lines hanging under the text of `key  value` lines, and the
 * same breaking for text that arrives in pieces (the assistant's streamed answer). ANSI colour
 * sequences take no room.
 */

/** Columns and rows of `cell`-sized characters that fit `box` (pixels), leaving room for the scrollbar. */
export function fitSize(box: { width: number; height: number }, cell: { width: number; height: number }, scrollbar = 0): { cols: number; rows: number } {
  if (!(cell.width > 0 && cell.height > 0)) return { cols: 80, rows: 24 };
  return { cols: Math.max(20, Math.floor((box.width - scrollbar) / cell.width)), rows: Math.max(5, Math.floor(box.height / cell.height)) };
}

const ANSI = /\x1b\[[0-9;?]*[@-~]/g;
/** Characters on the screen (colour sequences take none). */
export const visible = (s: string) => s.replace(ANSI, '').length;

/** `text` cut at `width` visible characters, the cut not inside a colour sequence: [head, rest]. */
function cutAt(text: string, width: number): [string, string] {
  let seen = 0;
  for (let i = 0; i < text.length; ) {
    if (text[i] === '\x1b') {
      ANSI.lastIndex = i;
      const m = ANSI.exec(text);
      if (m && m.index === i) {
        i += m[0].length;
        continue;
      }
    }
    if (seen === width) return [text.slice(0, i), text.slice(i)];
    seen++;
    i++;
  }
  return [text, ''];
}

/**
 * One line as lines of at most `cols`, broken at spaces; a word longer than the room is cut.
 * Continuation lines start with `indent` spaces.
 */
export function wrapLine(line: string, cols: number, indent = 0): string[] {
  if (visible(line) <= cols) return [line];
  const pad = ' '.repeat(indent < cols ? indent : 0);
  const out: string[] = [];
  let current = '';
  let width = 0;
  for (const token of line.split(/( +)/)) {
    if (!token) continue;
    const w = visible(token);
    if (/^ +$/.test(token)) {
      // Spaces at a break are dropped; inside a line they stay (alignment).
      if (width + w <= cols) (current += token), (width += w);
      else out.push(current), (current = pad), (width = pad.length);
      continue;
    }
    if (width + w > cols && width > pad.length) out.push(current.trimEnd()), (current = pad), (width = pad.length);
    let word = token;
    while (width + visible(word) > cols) {
      const [head, rest] = cutAt(word, cols - width);
      out.push(current + head);
      current = pad;
      width = pad.length;
      word = rest;
    }
    current += word;
    width += visible(word);
  }
  if (current.trim() || !out.length) out.push(current.trimEnd());
  return out;
}

/**
 * Text to `cols`: each line broken at spaces; a line of the form `  key   value` (two or more
 * spaces after its first word: help, fields) hangs its continuation lines under its value.
 */
export function wrapText(text: string, cols: number): string {
  return text
    .split('\n')
    .map((line) => {
      const hang = /^(\s*\S+(?: \S+)? {2,})/.exec(line.replace(ANSI, ''));
      const indent = hang && hang[1]!.length <= cols / 2 ? hang[1]!.length : 0;
      return wrapLine(line, cols, indent).join('\n');
    })
    .join('\n');
}

/**
 * Text that arrives in pieces, broken at spaces as it comes: a word is held until the space or
 * line end after it shows where it ends. `flush` lets out the last word.
 */
export class StreamWrapper {
  private col = 0;
  private word = '';
  private wordWidth = 0;
  private escape = '';
  /** The last line break was this wrapper's own (a space after it is not indentation). */
  private broke = false;

  constructor(private readonly cols: () => number) {}

  write(text: string): string {
    let out = '';
    for (const ch of text) {
      if (this.escape || ch === '\x1b') {
        this.escape += ch;
        if (this.escape.length > 1 && /[@-~]/.test(ch) && ch !== '[') {
          this.word += this.escape;
          this.escape = '';
        }
        continue;
      }
      if (ch === '\n' || ch === '\r') {
        out += this.takeWord() + ch;
        this.col = 0;
        this.broke = false;
      } else if (ch === ' ') {
        out += this.takeWord();
        if (this.col + 1 > this.cols()) {
          out += '\n';
          this.col = 0;
          this.broke = true;
        } else if (this.col > 0 || !this.broke) {
          out += ' ';
          this.col++;
        }
      } else {
        this.word += ch;
        this.wordWidth++;
      }
    }
    return out;
  }

  /** The word held back, written now (the end of the text). */
  flush(): string {
    return this.takeWord() + this.escape;
  }

  private takeWord(): string {
    if (!this.wordWidth) {
      const w = this.word;
      this.word = '';
      return w;
    }
    const cols = this.cols();
    let out = '';
    if (this.col > 0 && this.col + this.wordWidth > cols) {
      out += '\n';
      this.col = 0;
    }
    this.broke = false;
    out += this.word;
    // A word longer than a line is wrapped by the terminal itself.
    this.col = (this.col + this.wordWidth) % cols || (this.col + this.wordWidth > 0 ? cols : 0);
    this.word = '';
    this.wordWidth = 0;
    return out;
  }
}
