import type { Route } from '../route.ts';
import { initialState, type HttpMiddleware } from './state.ts';

/** Starts the request's state: its route, start time, correlation id and lower-cased headers. */
export const requestContext = (route: Route): HttpMiddleware => ({
  before: (request) => {
    request.internal = initialState(route, request.event);
  },
});
