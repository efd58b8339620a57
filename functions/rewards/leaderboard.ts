import { routeOf } from '#functions/routes.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { leaderboard, leaderboardQuery, leaderboardView } from '#lib/rewards/rewards.ts';

export const handler = endpoint(routeOf('GET', '/api/rewards/leaderboard'), { query: leaderboardQuery, responses: { 200: leaderboardView } }, async (req) =>
  leaderboard(req.query.epoch),
);
