/**
 * Throttling rules (contract section 3). Windows are fixed; counts are kept in the database or in
 * Redis, so every instance sees the same numbers. Per-account rules are keyed by the address
 * given, known or not, so they answer alike for both and reveal nothing.
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
  loginAccount: rule('login-account', 10, 15 * 60),
  /** Failed sign-ins from one client address, whatever the accounts (a success gives its attempt back). */
  loginAddress: rule('login-ip', 100, 15 * 60),
  /** Sign-in attempts of one account from one browser that has its device cookie. */
  loginDevice: rule('login-device', 10, 15 * 60),
  registerAddress: rule('register-ip', 20, 60 * 60),
  registerAccount: rule('register-account', 5, 60 * 60),
  resendAddress: rule('resend-ip', 20, 15 * 60),
  resendAccount: rule('resend-account', 3, 15 * 60),
  forgotAddress: rule('forgot-ip', 20, 15 * 60),
  forgotAccount: rule('forgot-account', 3, 15 * 60),
  /** Reset and verification links tried from one client address, valid or not. */
  resetAddress: rule('reset-ip', 20, 15 * 60),
  verifyAddress: rule('verify-ip', 30, 15 * 60),
} as const
