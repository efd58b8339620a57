import Busboy from 'busboy';
import { Readable } from 'node:stream';
import { errors } from '#lib/errors.ts';

export interface MultipartFile {
  field: string;
  filename: string;
  mimeType: string;
  stream: Readable;
  /** The text fields that came before this part (a later one may still come). */
  fieldsBefore: Readonly<Record<string, string>>;
}

export interface MultipartOptions {
  /** Largest file part in bytes; more → 413 FILE_TOO_LARGE, detected while streaming. */
  maxFileBytes: number;
  maxFields?: number;
  maxFieldBytes?: number;
  /** A streamed body (`body` a Readable): more bytes in all → 413 FILE_TOO_LARGE. */
  maxBodyBytes?: number;
  /** Consumes one file part as a stream; what it returns is collected. */
  onFile: (file: MultipartFile) => Promise<unknown>;
}

/**
 * Streams a multipart/form-data body — the bytes, or a stream still arriving (the local
 * emulator's streamed requests) — text fields are collected, each file part is handed to
 * `onFile` as a stream (never buffered here), and a part over the limit aborts with 413.
 */
export function parseMultipart(
  contentType: string | undefined,
  body: Buffer | Readable,
  opts: MultipartOptions,
): Promise<{ fields: Record<string, string>; files: unknown[] }> {
  if (!contentType || !/^multipart\/form-data/i.test(contentType)) {
    return Promise.reject(errors.invalidInput('body: must be multipart/form-data'));
  }
  const maxFields = opts.maxFields ?? 32;
  return new Promise((resolve, reject) => {
    let bb: Busboy.Busboy;
    try {
      bb = Busboy({
        headers: { 'content-type': contentType },
        // Header parameters (file names) as UTF-8, as browsers send them; busboy's default is latin1.
        defParamCharset: 'utf8',
        // busboy reports `limit` when a part *reaches* fileSize: + 1 so that exactly maxFileBytes passes.
        limits: { fileSize: opts.maxFileBytes + 1, fields: maxFields, fieldSize: opts.maxFieldBytes ?? 1024 * 1024, files: 1 },
      });
    } catch {
      reject(errors.invalidInput('body: malformed multipart/form-data'));
      return;
    }
    const fields: Record<string, string> = {};
    const pending: Promise<unknown>[] = [];
    let failed: unknown;
    const fail = (e: unknown) => {
      failed ??= e;
    };
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(errors.invalidInput(`${name}: field too large`));
      fields[name] = value;
    });
    bb.on('file', (field, stream, info) => {
      stream.on('limit', () => {
        // The consumer sees an error mid-stream and stops; busboy would otherwise wait on it.
        fail(errors.fileTooLarge());
        stream.destroy(errors.fileTooLarge());
        finish();
      });
      pending.push(
        opts.onFile({ field, filename: info.filename ?? 'file', mimeType: info.mimeType, stream, fieldsBefore: { ...fields } }).catch((e) => {
          fail(e);
          stream.resume();
        }),
      );
    });
    // Over a limit busboy drops the rest silently: refuse the request instead, naming the limit.
    bb.on('filesLimit', () => fail(errors.invalidInput('file: only one file part is accepted')));
    bb.on('fieldsLimit', () => fail(errors.invalidInput(`body: at most ${maxFields} fields`)));
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      Promise.allSettled(pending).then((results) => {
        if (failed) return reject(failed);
        const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
        if (rejected) return reject(rejected.reason);
        resolve({ fields, files: results.map((r) => (r as PromiseFulfilledResult<unknown>).value) });
      });
    };
    bb.on('error', () => {
      fail(errors.invalidInput('body: malformed multipart/form-data'));
      finish();
    });
    bb.on('close', finish);
    if (!(body instanceof Readable)) {
      bb.end(body);
      return;
    }
    // A stream: bounded in total (fields included), and a request that breaks off ends the parse.
    let received = 0;
    let cutOff = false;
    const cut = (e: unknown) => {
      if (cutOff) return;
      cutOff = true;
      fail(e);
      body.unpipe(bb);
      bb.destroy(e as Error); // the open file part's stream errors, so its consumer stops
      finish();
    };
    body.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (opts.maxBodyBytes !== undefined && received > opts.maxBodyBytes) cut(errors.fileTooLarge());
    });
    body.once('error', () => cut(errors.invalidInput('body: the request broke off')));
    body.pipe(bb);
  });
}
