import { routeOf, routes } from '#functions/routes.ts';
import { conversationsAnswer, createAssistant } from '#lib/ai/assistant.ts';
import { endpoint } from '#lib/http/endpoint.ts';

const assistant = createAssistant(routes);

export const handler = endpoint(routeOf('GET', '/api/ai/conversations'), { responses: { 200: conversationsAnswer } }, (req) =>
  assistant.listConversations(req.session!.userId),
);
