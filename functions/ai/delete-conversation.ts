import { routeOf, routes } from '#functions/routes.ts';
import { conversationParams, createAssistant, deletedAnswer } from '#lib/ai/assistant.ts';
import { endpoint } from '#lib/http/endpoint.ts';

const assistant = createAssistant(routes);

export const handler = endpoint(routeOf('DELETE', '/api/ai/conversations/:id'), { params: conversationParams, responses: { 200: deletedAnswer } }, (req) =>
  assistant.deleteConversation(req.session!.userId, req.params.id),
);
