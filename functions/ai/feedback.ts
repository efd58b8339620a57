import { routeOf, routes } from '#functions/routes.ts';
import { createAssistant, feedbackAnswer, feedbackInput } from '#lib/ai/assistant.ts';
import { endpoint } from '#lib/http/endpoint.ts';

const assistant = createAssistant(routes);

export const handler = endpoint(routeOf('POST', '/api/ai/feedback'), { body: feedbackInput, responses: { 200: feedbackAnswer } }, (req) =>
  assistant.feedback(req.session!.userId, req.body),
);
