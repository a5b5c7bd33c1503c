import { z } from 'zod'

/**
 * Sign in with Accounts: what the sign-in and consent pages learn about an app's sign-in request
 * (`GET /api/oidc/interactions/:uid/details`), and what the steps answer.
 */
export const appSignInDetailsSchema = z.object({
  uid: z.string(),
  app: z.object({ id: z.string(), name: z.string(), firstParty: z.boolean() }),
  /** What the person is asked for: to sign in, or to allow what the app asks for. */
  prompt: z.enum(['login', 'consent']),
  /** The app asked for a new sign-in (prompt=login, max_age): being signed in is not enough. */
  freshSignIn: z.boolean(),
  /** The scopes the app asked for. */
  scopes: z.array(z.string()),
  /** Why the signed-in person cannot continue to the app, if they cannot. */
  refusal: z.enum(['role']).nullable(),
})
export type AppSignInDetails = z.infer<typeof appSignInDetailsSchema>

/** Where the browser goes next: back to the protocol engine, which answers the app. */
export const appSignInStepSchema = z.object({ redirectTo: z.string() })
export type AppSignInStep = z.infer<typeof appSignInStepSchema>

export const interactionParamsSchema = z.object({ uid: z.string().min(1).max(100) })
