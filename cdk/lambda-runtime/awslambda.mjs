/**
 * The `awslambda` global of Lambda's Node.js runtime, as its response-streaming functions see it:
 * `streamifyResponse` marks the handler (the runtime then invokes it with a response stream), and
 * `HttpResponseStream.from` writes a function URL's prelude (status, headers, cookies as JSON) and
 * the 8 zero bytes that end it before the body. Plain JavaScript: it is loaded into the sandboxes
 * of cdk/lambda-sandbox.ts, where nothing but Node's and the runtime's modules resolve.
 */
const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const HIGH_WATER_MARK = Symbol.for('aws.lambda.runtime.handler.streaming.highWaterMark');
const PRELUDE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';

class HttpResponseStream {
  static from(stream, prelude) {
    stream.setContentType?.(PRELUDE_CONTENT_TYPE);
    stream.write(JSON.stringify(prelude));
    stream.write(new Uint8Array(8));
    return stream;
  }
}

globalThis.awslambda = {
  streamifyResponse(handler, options) {
    handler[STREAMING] = 'response';
    if (options?.highWaterMark) handler[HIGH_WATER_MARK] = options.highWaterMark;
    return handler;
  },
  HttpResponseStream,
};
export const STREAMING_MARK = STREAMING;
export { PRELUDE_CONTENT_TYPE };
