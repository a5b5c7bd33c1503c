import { z } from 'zod'

/**
 * Passkey calls (contract section 6): the browser's WebAuthn responses as JSON, the passkey as
 * the API shows it, and its name. The options the server hands out are WebAuthn's own JSON shapes
 * (`PublicKeyCredentialCreationOptionsJSON`, `PublicKeyCredentialRequestOptionsJSON`), passed to
 * the browser as they are.
 */

export const PASSKEY_NAME_MAX = 64

export const passkeyMessages = {
  nameRequired: 'Passkey name is required',
  nameMax: `Passkey name must be at most ${PASSKEY_NAME_MAX} characters`,
  nameControl: 'Passkey name must not contain control characters',
  response: 'Invalid passkey response',
} as const

/** 1 to 64 characters (code points, as a person counts them), trimmed, no control characters. */
export const passkeyNameField = z
  .string({ error: passkeyMessages.nameRequired })
  .max(PASSKEY_NAME_MAX * 2, { error: passkeyMessages.nameMax, abort: true })
  .trim()
  .min(1, { error: passkeyMessages.nameRequired })
  .refine((value) => Array.from(value).length <= PASSKEY_NAME_MAX, { error: passkeyMessages.nameMax })
  .regex(/^[^\p{Cc}]*$/u, { error: passkeyMessages.nameControl })

/** A base64url string of bounded length, as WebAuthn's JSON carries binary values. */
const base64url = (max: number) =>
  z
    .string({ error: passkeyMessages.response })
    .max(max, { error: passkeyMessages.response })
    .regex(/^[A-Za-z0-9_-]*$/, { error: passkeyMessages.response })

/** A credential id is at most 1023 bytes: 1364 characters of base64url. */
const credentialId = base64url(1364).min(1, { error: passkeyMessages.response })
const transports = z.array(z.string().max(32)).max(10).optional()
const extensionResults = z.record(z.string().max(64), z.unknown()).refine((value) => Object.keys(value).length <= 16, { error: passkeyMessages.response })
const attachment = z.enum(['platform', 'cross-platform']).optional()

/** The browser's `RegistrationResponseJSON` (navigator.credentials.create, as JSON). */
export const registrationResponseSchema = z.object(
  {
    id: credentialId,
    rawId: credentialId,
    type: z.literal('public-key', { error: passkeyMessages.response }),
    response: z.object({
      clientDataJSON: base64url(4096).min(1),
      attestationObject: base64url(32768).min(1),
      authenticatorData: base64url(32768).optional(),
      transports,
      publicKeyAlgorithm: z.number().int().optional(),
      publicKey: base64url(8192).optional(),
    }),
    authenticatorAttachment: attachment,
    clientExtensionResults: extensionResults,
  },
  { error: passkeyMessages.response },
)

/** The browser's `AuthenticationResponseJSON` (navigator.credentials.get, as JSON). */
export const authenticationResponseSchema = z.object(
  {
    id: credentialId,
    rawId: credentialId,
    type: z.literal('public-key', { error: passkeyMessages.response }),
    response: z.object({
      clientDataJSON: base64url(4096).min(1),
      authenticatorData: base64url(32768).min(1),
      // ML-DSA-87's 4,627 bytes are 6,170 characters: a post-quantum passkey's signature fits (decision 0566).
      signature: base64url(8192).min(1),
      userHandle: base64url(128).optional(),
    }),
    authenticatorAttachment: attachment,
    clientExtensionResults: extensionResults,
  },
  { error: passkeyMessages.response },
)

export const passkeyRegistrationSchema = z.strictObject({
  response: registrationResponseSchema,
  name: passkeyNameField.optional(),
})

export const passkeyAuthenticationSchema = z.strictObject({
  response: authenticationResponseSchema,
})

export const renamePasskeySchema = z.strictObject({ name: passkeyNameField })
export type RenamePasskeyInput = z.input<typeof renamePasskeySchema>

export const passkeyParamsSchema = z.object({ id: z.string() })

/** A passkey as the API shows it: never its key or counter. */
export const passkeySchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
})
export type Passkey = z.infer<typeof passkeySchema>

export const passkeyResultSchema = z.object({ passkey: passkeySchema })
export const passkeyListSchema = z.object({ passkeys: z.array(passkeySchema) })

const credentialDescriptor = z.object({ id: z.string(), type: z.string(), transports: z.array(z.string()).optional() })

/** `PublicKeyCredentialCreationOptionsJSON`, as handed to the browser. */
export const registrationOptionsSchema = z.object({
  rp: z.object({ name: z.string(), id: z.string().optional() }),
  user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
  challenge: z.string(),
  pubKeyCredParams: z.array(z.object({ type: z.string(), alg: z.number() })),
  timeout: z.number().optional(),
  excludeCredentials: z.array(credentialDescriptor).optional(),
  authenticatorSelection: z
    .object({
      authenticatorAttachment: z.string().optional(),
      residentKey: z.string().optional(),
      requireResidentKey: z.boolean().optional(),
      userVerification: z.string().optional(),
    })
    .optional(),
  hints: z.array(z.string()).optional(),
  attestation: z.string().optional(),
  attestationFormats: z.array(z.string()).optional(),
  extensions: z.object({ credProps: z.boolean().optional() }).optional(),
})

/** `PublicKeyCredentialRequestOptionsJSON`, as handed to the browser. */
export const authenticationOptionsSchema = z.object({
  challenge: z.string(),
  timeout: z.number().optional(),
  rpId: z.string().optional(),
  allowCredentials: z.array(credentialDescriptor).optional(),
  userVerification: z.string().optional(),
  hints: z.array(z.string()).optional(),
  extensions: z.object({ credProps: z.boolean().optional() }).optional(),
})
