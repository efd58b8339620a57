import { routeOf, routes } from '#functions/routes.ts';
import { createAssistant, statusAnswer } from '#lib/ai/assistant.ts';
import { endpoint } from '#lib/http/endpoint.ts';

const assistant = createAssistant(routes);

export const handler = endpoint(routeOf('GET', '/api/ai/status'), { responses: { 200: statusAnswer } }, () => assistant.status());
