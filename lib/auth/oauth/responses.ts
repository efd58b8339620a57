import * as z from 'zod';
import { proofStatusFields } from '#lib/auth/stark-session/index.ts';
import { redirectResponse } from '#lib/openapi/responses.ts';
import { PROVIDER_IDS } from './providers.ts';

/** The social-login routes' answers (before the `{success, data}` envelope), for the OpenAPI document. */
export const providersResponse = z.object({
  providers: z.array(z.object({ id: z.enum(PROVIDER_IDS), name: z.string(), icon: z.string(), enabled: z.boolean() })),
});

export const statusResponse = z.union([
  z.object({
    authenticated: z.literal(true),
    provider: z.string(),
    email: z.string().nullable(),
    name: z.string().nullable(),
    avatar: z.string().nullable(),
    ...proofStatusFields,
  }),
  z.object({ authenticated: z.literal(false) }),
]);

export const unlinkResponse = z.object({ unlinked: z.literal(true), provider: z.enum(PROVIDER_IDS), remainingProviders: z.array(z.string()) });

export const logoutResponse = z.object({ loggedOut: z.literal(true), proofRevoked: z.boolean() });

export const toProviderResponse = redirectResponse("To the provider's authorization page (a state cookie is set on the callback path).");
export const fromProviderResponse = redirectResponse('To the redirect target, signed in, or with `error=AUTH_FAILED`.');
