import { routeOf, routes } from '#functions/routes.ts';
import { answerOf, sseOf } from '#lib/ai/events.ts';
import { answerSchema, chatInput, createAssistant } from '#lib/ai/assistant.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { binary, reply } from '#lib/http/reply.ts';
import { canStream, streamBody, streamingHandler } from '#lib/http/stream.ts';

const assistant = createAssistant(routes);
const SSE = { 'content-type': 'text/event-stream; charset=utf-8', 'x-accel-buffering': 'no' };

/** `Accept: text/event-stream` streams the events; anything else gets them folded into one JSON answer. */
export const handler = endpoint(routeOf('POST', '/api/ai/chat'), { body: chatInput, responses: { 200: answerSchema } }, async (req) => {
  const events = await assistant.chat(req.session!.userId, req.body);
  if (!/\btext\/event-stream\b/i.test(req.headers.accept ?? '')) return answerOf(events);
  if (canStream(req.event)) {
    streamBody(req.event, sseOf(events));
    return reply(200, undefined, { headers: SSE });
  }
  // Behind API Gateway (which buffers): the same events, sent whole.
  let text = '';
  for await (const frame of sseOf(events)) text += frame;
  return binary(Buffer.from(text), SSE);
});

/** The function URL's handler on AWS (response streaming); undefined elsewhere. */
export const streamHandler = streamingHandler(handler);
