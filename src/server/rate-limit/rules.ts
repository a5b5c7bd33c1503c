/**
 * Every throttling rule, in one place (docs/decisions/0005). Windows are fixed; counts are kept in
 * the database or in Redis, so every instance sees the same numbers. Each rule's name says what
 * it counts and what it is keyed by: the client's IP address, the e-mail address given (known or
 * not, so a rule answers alike for both and reveals nothing), a signed-in user's id, or the
 * device cookie of a browser the account signed in from before (decision 0301).
 * The `name` strings are the counters' keys: renaming one would reset its counts.
 */
export interface RateLimitRule {
  name: string
  max: number
  windowSeconds: number
}

const rule = (name: string, max: number, windowSeconds: number): RateLimitRule => ({ name, max, windowSeconds })

export const RULES = {
  /**
   * Sign-in attempts on one address from browsers it was not used in: NIST asks for throttling
   * well before 100 failures. Attempts from a browser holding the account's device cookie count
   * against that cookie instead (decision 0301), so that this limit cannot lock the owner out.
   */
  signInByEmail: rule('login-account', 10, 15 * 60),
  /** Failed sign-ins from one client address, whatever the accounts (a success gives its attempt back). */
  signInByIp: rule('login-ip', 100, 15 * 60),
  /** Sign-in attempts of one account from one browser that has its device cookie. */
  signInByDevice: rule('login-device', 10, 15 * 60),
  registerByIp: rule('register-ip', 20, 60 * 60),
  registerByEmail: rule('register-account', 5, 60 * 60),
  resendVerificationByIp: rule('resend-ip', 20, 15 * 60),
  resendVerificationByEmail: rule('resend-account', 3, 15 * 60),
  forgotPasswordByIp: rule('forgot-ip', 20, 15 * 60),
  forgotPasswordByEmail: rule('forgot-account', 3, 15 * 60),
  /** Reset and verification links tried from one client address, valid or not. */
  resetPasswordByIp: rule('reset-ip', 20, 15 * 60),
  verifyEmailByIp: rule('verify-ip', 30, 15 * 60),
  /** Invitation links tried from one client address, valid or not. */
  acceptInvitationByIp: rule('invite-ip', 20, 15 * 60),
  /**
   * Guesses at the current password from a signed-in session (a stolen token, an open laptop):
   * changing it, and confirming it to set up, turn off or renew two-factor sign-in; and every
   * attempt at deleting the account (its password, passkey and second-step code alike).
   */
  changePasswordByUser: rule('change-password-account', 10, 15 * 60),
  /** Passkey sign-in attempts from one client address that failed (a success gives its attempt back). */
  passkeySignInByIp: rule('passkey-login-ip', 100, 15 * 60),
  /** Passkey options (each stores a challenge) asked for from one client address. */
  passkeyOptionsByIp: rule('passkey-options-ip', 300, 15 * 60),
  /** Passkey registrations started by one signed-in user. */
  passkeyRegistrationByUser: rule('passkey-register-account', 20, 15 * 60),
  /** Passkey confirmations (each stores a challenge) asked for by one signed-in user. */
  passkeyConfirmationByUser: rule('passkey-confirm-account', 20, 15 * 60),
  /**
   * Sign in with Accounts, the token endpoint: requests from one client address, and for one
   * application (a busy reverse proxy refreshes for many people at once, hence the room). Failed
   * client authentication also counts as a failed sign-in from that address (`signInByIp`).
   */
  oidcTokenByIp: rule('oidc-token-ip', 3000, 60),
  oidcTokenByApp: rule('oidc-token-app', 6000, 60),
  /**
   * Device sign-in (contract section 11): user codes that match no device code, from one client
   * address and from one browser (the provider's session cookie). 20^8 codes, 10 tries in 15
   * minutes: no code can be guessed in its 10-minute life.
   */
  deviceCodeByIp: rule('device-code-ip', 10, 15 * 60),
  deviceCodeBySession: rule('device-code-session', 10, 15 * 60),
} as const

/**
 * Calls of the admin API with one service credential (contract section 11): an API key counts by
 * itself, a client-credentials token against its application (which could mint more tokens), in
 * windows of a minute; the maximum is API_RATE_LIMIT. Only a live credential is counted, so the
 * answer past it is a 429, never a 401.
 */
export const apiCallsByCredential = (max: number): RateLimitRule => rule('api-credential', max, 60)
