'use strict';
/**
 * The body of a GET of an object on the local S3 servers (s3-worker.cjs): its bytes read from the
 * object's file in pooled 1 MiB pieces and written straight to the response (`objectBodies`).
 */
const { AsyncLocalStorage } = require('node:async_hooks');
const { Readable } = require('node:stream');

/** Objects are 8 MiB shards and 100 MB files: read and written in 1 MiB pieces, not fs streams' 64/16 KiB. */
const PIECE = 1024 * 1024;

/**
 * 1 MiB read buffers shared by every GET's body: a buffer goes back once the response has
 * written it. A fresh 1 MiB buffer per read (fs streams) is 100 MB of garbage for a 100 MB
 * download, and V8 answers that much external memory with a full collection every few tens of
 * MB: half this thread's time in a download went to them.
 */
const spareBuffers = [];
const SPARE_BUFFERS = 8;
const takeBuffer = () => spareBuffers.pop() ?? Buffer.allocUnsafeSlow(PIECE);
const giveBack = (buffer) => void (spareBuffers.length < SPARE_BUFFERS && spareBuffers.push(buffer));
/** A GET body has at most this many pieces on their way at once: one being written, one read. */
const PIECES_IN_FLIGHT = 2;
/** The bodies opened while a request is handled (`objectBodies`): those it does not send are closed. */
const bodiesOpened = new AsyncLocalStorage();

/**
 * An object's bytes `start`..`end` (inclusive) from its open file, which it closes when destroyed
 * (koa destroys a body when its response ends, s3rver a HEAD's at once, `objectBodies` one its
 * request did not send). `sendTo` is the GET path (`objectBodies` below); as a plain Readable
 * (anything else that reads it) each piece is a buffer of its own.
 */
class ObjectBody extends Readable {
  constructor(handle, start, end) {
    super({ highWaterMark: PIECE });
    this.handle = handle;
    this.at = start;
    this.end = end;
    bodiesOpened.getStore()?.add(this);
  }

  /** The next piece into `buffer`; empty at the end. A file shorter than its range is an error, not a short body. */
  async readPiece(buffer) {
    const want = Math.min(buffer.length, this.end + 1 - this.at);
    if (want <= 0) return buffer.subarray(0, 0);
    const { bytesRead } = await this.handle.read(buffer, 0, want, this.at);
    if (bytesRead === 0) throw new Error('the object ended before its range');
    this.at += bytesRead;
    return buffer.subarray(0, bytesRead);
  }

  _read() {
    this.readPiece(Buffer.allocUnsafe(Math.max(1, Math.min(PIECE, this.end + 1 - this.at)))).then(
      (piece) => this.push(piece.length ? piece : null),
      (e) => this.destroy(e),
    );
  }

  _destroy(error, callback) {
    this.handle.close().then(
      () => callback(error),
      () => callback(error),
    );
  }

  /**
   * Writes the bytes to `res` and ends it, in pooled buffers: a buffer is read into again only
   * after `res` called back for its write (the socket is done with it). A client gone stops the
   * reads; a failed read cuts the response short (its Content-Length was sent), as S3's would be.
   */
  async sendTo(res) {
    let wake = () => {};
    let inFlight = 0;
    // The socket's close too: a pipelined response still queued behind another never sees its own.
    const socket = res.req.socket;
    const gone = () => res.destroyed || socket.destroyed;
    const onClose = () => wake();
    res.once('close', onClose);
    socket.once('close', onClose);
    try {
      while (this.at <= this.end && !gone()) {
        if (inFlight >= PIECES_IN_FLIGHT) {
          await new Promise((resolve) => (wake = resolve));
          continue;
        }
        const buffer = takeBuffer();
        const piece = await this.readPiece(buffer).catch((e) => {
          giveBack(buffer);
          throw e;
        });
        if (gone()) {
          giveBack(buffer);
          break;
        }
        inFlight++;
        // On an error the socket may still hold it: that buffer is left to the collector.
        res.write(piece, (error) => {
          if (!error) giveBack(buffer);
          inFlight--;
          wake();
        });
      }
      if (!gone()) res.end();
    } catch (e) {
      res.destroy(e);
    } finally {
      res.off('close', onClose);
      socket.off('close', onClose);
      this.destroy();
    }
  }
}

/** A GET of an object is sent by its body (ObjectBody.sendTo), koa's headers and status as s3rver set them. */
async function objectBodies(ctx, next) {
  const opened = new Set();
  try {
    await bodiesOpened.run(opened, next);
  } finally {
    // A body s3rver opened and did not answer with (its own 304, an error after getObject) is closed now.
    for (const body of opened) if (body !== ctx.body) body.destroy();
  }
  if (ctx.method !== 'GET' || !(ctx.body instanceof ObjectBody)) return;
  ctx.respond = false;
  await ctx.body.sendTo(ctx.res);
}

module.exports = { ObjectBody, objectBodies, PIECE };
