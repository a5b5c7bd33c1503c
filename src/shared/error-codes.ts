/**
 * The machine codes of the API's failure envelope (`{ success: false, message, code, … }`), written
 * once: the server makes its errors with them, and the browser decides what to do by them, not
 * by the wording of the message (docs/decisions/0010). Grouped by the status that carries them.
 */
export const ERROR_CODES = [
  // 400
  'BAD_REQUEST',
  'VALIDATION_ERROR',
  'INVALID_TOKEN',
  'INVALID_IMAGE',
  'IMAGE_TOO_LARGE',
  'PASSKEY_REJECTED',
  // 401
  'UNAUTHORIZED',
  'AUTH_REQUIRED',
  'TOKEN_INVALID',
  'SESSION_ENDED',
  'INVALID_CREDENTIALS',
  'REFRESH_INVALID',
  /** A service credential (API key or client-credentials token) unknown, expired, or of a disabled or deleted application. */
  'CREDENTIAL_INVALID',
  /** The sign-in's second step: a wrong code, or an mfaToken that is wrong, used, expired or spent. */
  'INVALID_CODE',
  /** A provider sign-in's handoff that is unknown, used, expired, or not this browser's. */
  'FEDERATION_FAILED',
  // 403
  'FORBIDDEN',
  'CSRF_INVALID',
  'ACCOUNT_SUSPENDED',
  'ACCOUNT_INACTIVE',
  'EMAIL_NOT_VERIFIED',
  'SELF_EDIT',
  'SELF_DELETE',
  'ADMIN_DELETE',
  /** Sign in with Accounts: the application does not admit the account's role. */
  'APP_ACCESS_DENIED',
  /** A provider identity no account uses, and the provider does not create accounts. */
  'FEDERATION_NO_ACCOUNT',
  /** A service credential on a call its scopes do not allow (or on a call no scope allows). */
  'INSUFFICIENT_SCOPE',
  // 404
  'NOT_FOUND',
  'USER_NOT_FOUND',
  'SESSION_NOT_FOUND',
  /** An application that does not exist, or (Connected apps) one the caller has not allowed. */
  'APPLICATION_NOT_FOUND',
  /** A webhook endpoint, or a delivery of one, that does not exist. */
  'WEBHOOK_NOT_FOUND',
  'DELIVERY_NOT_FOUND',
  /** Sign in with Accounts: no sign-in request of an app under that id in this browser (unknown, expired or finished). */
  'INTERACTION_NOT_FOUND',
  /** An identity provider that does not exist, or a disabled one at sign-in; or a linked identity the caller does not have. */
  'IDENTITY_PROVIDER_NOT_FOUND',
  'IDENTITY_NOT_FOUND',
  'API_KEY_NOT_FOUND',
  // 409
  'CONFLICT',
  'EMAIL_TAKEN',
  'LAST_ADMIN',
  'NOT_INACTIVE',
  'INVITATION_ACCEPTED',
  'NOT_ACTIVE',
  /** Two-factor: a setup while it is on, codes while it is off, a code with no setup waiting. */
  'MFA_ALREADY_ENABLED',
  'MFA_NOT_ENABLED',
  'MFA_SETUP_REQUIRED',
  'PASSKEY_EXISTS',
  'PASSKEY_LIMIT',
  /** Sign in with Accounts: the app asked for a new sign-in (prompt=login, max_age). */
  'FRESH_SIGN_IN_REQUIRED',
  /** A client secret asked of a public application, which has none. */
  'PUBLIC_APPLICATION',
  /** A provider identity already linked to another account. */
  'IDENTITY_LINKED_ELSEWHERE',
  /** Removing the last way an account has to sign in. */
  'LAST_SIGN_IN_METHOD',
  /** API keys asked of an application that is not a service application. */
  'NOT_SERVICE_APPLICATION',
  // 421
  'MISDIRECTED_REQUEST',
  // 413, 414, 415, 429
  'PAYLOAD_TOO_LARGE',
  'URI_TOO_LONG',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  // 500, 503
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'SHUTTING_DOWN',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

const KNOWN: ReadonlySet<string> = new Set(ERROR_CODES)

export const isErrorCode = (value: unknown): value is ErrorCode => typeof value === 'string' && KNOWN.has(value)
