import crypto from 'node:crypto'

/**
 * CSRF tokens bound to the session: an HMAC of the session id. Only the server can make one, a
 * token of one session is worthless in another, and nothing needs storing.
 */
export class CsrfTokens {
  constructor(private readonly key: Buffer) {}

  forSession(sessionId: string): string {
    return crypto.createHmac('sha256', this.key).update(sessionId).digest('base64url')
  }

  matches(sessionId: string, presented: string | undefined): boolean {
    if (!presented) return false
    const expected = Buffer.from(this.forSession(sessionId))
    const given = Buffer.from(presented)
    return given.length === expected.length && crypto.timingSafeEqual(given, expected)
  }
}
