import { z } from 'zod'
import { deleteAccountMessages } from './own-data'
import { authenticationResponseSchema } from './passkeys'
import { mfaRequiredSchema } from './two-factor'
import { authResultSchema } from './user'

/**
 * Signing in through an identity provider, as the web app finishes it (contract section 10): the
 * handoff it redeems, what it gets back, and the link a person makes by proving their account.
 */

export const federationMessages = {
  failed: 'The sign-in with your identity provider could not be completed. Please try again.',
  noAccount: (provider: string) => `No account uses this ${provider} identity. Ask an administrator for an invitation.`,
  linkedElsewhere: (provider: string) => `This ${provider} identity is linked to another account`,
  lastWayIn: 'Add a password or a passkey before removing your last way to sign in',
  identityNotFound: 'Linked sign-in method not found',
} as const

const opaqueToken = z.string({ error: federationMessages.failed }).regex(/^[A-Za-z0-9_-]{20,100}$/, { error: federationMessages.failed })

export const completeProviderSignInSchema = z.strictObject({ handoff: opaqueToken })
export const linkPendingIdentitySchema = z.strictObject({ linkToken: opaqueToken })

/** An identity not linked yet whose address is an account's: that account's owner proves it, then links. */
export const linkRequiredSchema = z.object({
  linkRequired: z.literal(true),
  email: z.string(),
  provider: z.object({ id: z.string(), name: z.string() }),
  linkToken: z.string(),
})
export type LinkRequired = z.infer<typeof linkRequiredSchema>

export const linkedIdentitySchema = z.object({
  id: z.string(),
  providerId: z.string(),
  providerName: z.string(),
  kind: z.string(),
  email: z.string().nullable(),
  linkedAt: z.string(),
  lastUsedAt: z.string().nullable(),
})
export type LinkedIdentity = z.infer<typeof linkedIdentitySchema>
/**
 * The list, and whether the account has a password: the Security tab offers a provider sign-in in
 * its place where one is asked for (deleting the account), and says why the last way in stays.
 */
export const linkedIdentityListSchema = z.object({ identities: z.array(linkedIdentitySchema), hasPassword: z.boolean() })
export const linkedIdentityResultSchema = z.object({ identity: linkedIdentitySchema })
export const identityParamsSchema = z.object({ id: z.string() })

/**
 * Linking from Profile → Security: the password, or a passkey's answer to the owner's confirmation
 * challenge (decision 0562), exactly one of them; then where to send the browser.
 */
export const startLinkSchema = z
  .strictObject({
    password: z.string({ error: 'Current password is required' }).min(1, { error: 'Current password is required' }).max(1024).optional(),
    passkeyResponse: authenticationResponseSchema.optional(),
  })
  .refine((value) => (value.password === undefined) !== (value.passkeyResponse === undefined), { path: ['password'], error: deleteAccountMessages.oneProof })
export const startLinkResultSchema = z.object({ url: z.string() })
export const providerParamsSchema = z.object({ providerId: z.string() })

const returnTo = z.object({ returnTo: z.string() })
/** A link made from Profile → Security, at its handoff. */
export const linkedResultSchema = z.object({ linked: z.literal(true), identity: linkedIdentitySchema })
export const providerSignInResultSchema = z.union([
  authResultSchema.extend(returnTo.shape),
  mfaRequiredSchema.extend(returnTo.shape),
  linkRequiredSchema.extend(returnTo.shape),
  linkedResultSchema.extend(returnTo.shape),
])
export type ProviderSignInResult = z.infer<typeof providerSignInResultSchema>
