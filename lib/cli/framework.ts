/**
 * The frame of `shroud`'s commands, for the terminal program (lib/cli/main.ts, commander) and the
 * browser terminal (lib/web/terminal.ts): what a command is (a name, its arguments and options, and
 * a `run` over the typed client and an `Io` — files, prompts, progress, the saved session — that
 * each host provides), what it returns (an Output: the data, which `--json` prints as is, and how a
 * human sees it), the exit codes by error class, and the one signed-out hint. The commands
 * themselves are one file per group, as functions/ is (lib/cli/commands.ts lists them).
 */
import { ShroudError, type ShroudClient } from '#lib/client/api.ts';
import type { LoopbackListener } from '#lib/client/oauth-loopback.ts';

export interface ArgDef {
  name: string;
  description: string;
  optional?: boolean;
  /** Takes the rest of the words. */
  variadic?: boolean;
}
export interface OptionDef {
  /** commander's form: `-p, --password <password>`, `--json`. */
  flags: string;
  description: string;
  default?: string;
}

export interface ProgressBar {
  update(loaded: number, total?: number): void;
  stage(label: string): void;
  stop(): void;
}

/** What a host gives the commands. */
export interface Io {
  readFile(path: string): Promise<{ name: string; bytes: Uint8Array }>;
  writeFile(path: string, bytes: Uint8Array): Promise<string>;
  /** A secret asked for (no echo) when not given as an option. */
  askSecret(question: string): Promise<string>;
  progress(label: string, total?: number): ProgressBar;
  /** Forget the saved session (logout). */
  clearSession(): Promise<void>;
  /**
   * OAuth for native apps (RFC 8252): a one-shot listener on 127.0.0.1 and a way to show the
   * sign-in URL (open a browser unless told not to; always print it). Hosts without a loopback
   * leave it out (the browser terminal signs in by redirect, lib/web/oauth.ts).
   */
  loopback?: { listen(): Promise<LoopbackListener>; show(url: string, openBrowser: boolean): Promise<void> };
  /** Prompts reach a person (a terminal), not a pipe: new passwords are asked for twice. */
  interactive?: boolean;
  /**
   * Large uploads go to storage by a presigned URL (lib/client/storage.ts): the terminal program's.
   * The browser terminal sends through the API, as the bucket's CORS names the page's origin only where configured.
   */
  presignedUploads?: boolean;
  /** Text shown as it arrives (the assistant's answer); hosts leave it out under `--json`, and the command returns it whole. */
  stream?(text: string): void;
}

export type Output =
  | { data: unknown; table: { columns: string[]; rows: (string | number | boolean | null | undefined)[][] }; empty?: string }
  | { data: unknown; fields: [string, unknown][] }
  | { data: unknown; text: string };

export interface CommandContext {
  client: ShroudClient;
  io: Io;
  args: string[];
  opts: Record<string, string | boolean | undefined>;
}

export interface CommandDef {
  /** Words: `wallet create`, `toolkit hash`. */
  name: string;
  summary: string;
  args?: ArgDef[];
  options?: OptionDef[];
  run(ctx: CommandContext): Promise<Output>;
}

/** Exit codes by error class (the CLI's contract with scripts; README). */
export const EXIT = { ok: 0, failure: 1, usage: 2, auth: 3, notFound: 4, refused: 5, rateLimited: 6, unavailable: 7 } as const;

export function exitCodeOf(e: unknown): number {
  if (!(e instanceof ShroudError)) return EXIT.failure;
  if (e.status === 0) return e.code === 'NETWORK_ERROR' ? EXIT.unavailable : EXIT.usage;
  if (e.status === 400) return EXIT.usage;
  if (e.status === 401 || e.status === 403) return EXIT.auth;
  if (e.status === 404 || e.status === 410) return EXIT.notFound;
  if (e.status === 429) return EXIT.rateLimited;
  if (e.status >= 500) return EXIT.unavailable;
  return EXIT.refused;
}

/** What every command says when the session is missing or over (`whoami`, `files`, … alike). */
export const SIGNED_OUT_HINT = 'sign in with `shroud login <username>` (or `shroud register <username>` for a new account)';
export function withHint(e: unknown): unknown {
  if (e instanceof ShroudError && (e.code === 'UNAUTHENTICATED' || e.code === 'SESSION_EXPIRED') && !e.message.includes('shroud login')) {
    return new ShroudError(e.code, e.status, `${e.message === 'not authenticated' ? 'not signed in' : e.message}: ${SIGNED_OUT_HINT}`, e.retryAfter);
  }
  return e;
}
