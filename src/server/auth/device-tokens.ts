import crypto from 'node:crypto'

/**
 * Device cookies (decision 0301, OWASP's "Slow brute force: device cookies"). A browser that has
 * signed in to an account, or reset its password, gets a token for that account in an HttpOnly
 * cookie sent only to the sign-in call. A later sign-in attempt of that account carrying a genuine
 * token is counted against that token alone, not against the account's and the client address's
 * limits: someone guessing from elsewhere, who can keep those limits exhausted, cannot lock the
 * owner out of a browser they have used before.
 *
 * A token is `nonce.issuedAt.mac`: a random 128-bit nonce (the device's identity for throttling),
 * the time it was issued (base 36 seconds), and an HMAC of both and the account id under a key
 * derived from AUTH_SECRET, so no one can make one and one account's token is worth nothing for
 * another. The cookie holds the tokens of the last few accounts used in that browser; nothing is
 * stored on the server.
 *
 * The cookie is read and written through a `CookieJar` (made from the request and its reply by
 * `http/cookies.ts`), so the sign-in and reset use cases that decide about it know no HTTP.
 */
export const DEVICE_COOKIE = 'accounts_device'
export const DEVICE_COOKIE_PATH = '/api/auth/login'
const LIFETIME_SECONDS = 180 * 24 * 60 * 60
const ACCOUNTS_PER_BROWSER = 5
const SEPARATOR = '~'

/** One cookie of one request: the value it carried, and the way to give the browser a new one. */
export interface CookieJar {
  readonly value: string | undefined
  set(value: string, attributes: CookieAttributes): void
}

export interface CookieAttributes {
  path: string
  httpOnly: boolean
  sameSite: 'strict'
  secure: boolean
  maxAge: number
}

interface DeviceToken {
  nonce: string
  issuedAt: number
  mac: string
}

export class DeviceTokens {
  constructor(
    private readonly key: Buffer,
    private readonly secureCookie: boolean,
  ) {}

  /** The device identity this request's cookie holds for the account, when its token is genuine and current. */
  recognise(cookie: CookieJar, userId: string, now: Date): string | null {
    const token = this.tokensOf(cookie).find((candidate) => this.isGenuine(candidate, userId, now))
    return token ? token.nonce : null
  }

  /** After the account's owner proved themself: its token (kept or new, issued now) first, other accounts' after. */
  remember(cookie: CookieJar, userId: string, now: Date): void {
    const tokens = this.tokensOf(cookie)
    const own = tokens.find((candidate) => this.isGenuine(candidate, userId, now))
    const nonce = own?.nonce ?? crypto.randomBytes(16).toString('base64url')
    const issuedAt = Math.floor(now.getTime() / 1000)
    const fresh: DeviceToken = { nonce, issuedAt, mac: this.mac(userId, nonce, issuedAt) }
    const others = tokens.filter((candidate) => candidate !== own).slice(0, ACCOUNTS_PER_BROWSER - 1)
    cookie.set([fresh, ...others].map(format).join(SEPARATOR), {
      path: DEVICE_COOKIE_PATH,
      httpOnly: true,
      sameSite: 'strict',
      secure: this.secureCookie,
      maxAge: LIFETIME_SECONDS,
    })
  }

  private tokensOf(cookie: CookieJar): DeviceToken[] {
    const value = cookie.value
    if (!value || value.length > 1_000) return []
    return value.split(SEPARATOR).flatMap((part) => {
      const match = /^([A-Za-z0-9_-]{22})\.([0-9a-z]{1,10})\.([A-Za-z0-9_-]{43})$/.exec(part)
      return match ? [{ nonce: match[1]!, issuedAt: parseInt(match[2]!, 36), mac: match[3]! }] : []
    })
  }

  private isGenuine(token: DeviceToken, userId: string, now: Date): boolean {
    const age = now.getTime() / 1000 - token.issuedAt
    if (age < -60 || age > LIFETIME_SECONDS) return false
    const expected = Buffer.from(this.mac(userId, token.nonce, token.issuedAt))
    const given = Buffer.from(token.mac)
    return given.length === expected.length && crypto.timingSafeEqual(given, expected)
  }

  private mac(userId: string, nonce: string, issuedAt: number): string {
    return crypto.createHmac('sha256', this.key).update(`${userId}.${nonce}.${issuedAt}`).digest('base64url')
  }
}

const format = (token: DeviceToken) => `${token.nonce}.${token.issuedAt.toString(36)}.${token.mac}`
