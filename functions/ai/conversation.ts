import { routeOf, routes } from '#functions/routes.ts';
import { conversationAnswer, conversationParams, createAssistant } from '#lib/ai/assistant.ts';
import { endpoint } from '#lib/http/endpoint.ts';

const assistant = createAssistant(routes);

export const handler = endpoint(routeOf('GET', '/api/ai/conversations/:id'), { params: conversationParams, responses: { 200: conversationAnswer } }, (req) =>
  assistant.conversation(req.session!.userId, req.params.id),
);
