import crypto from 'node:crypto'
import { createSigner, createVerifier } from 'fast-jwt'
import type { Clock } from '~server/clock'

/**
 * Short-lived signed access tokens: HS256 only (the algorithm is pinned when verifying, so
 * `alg: none` or another algorithm is refused), an `at+jwt` type so no other JWT passes as one,
 * and the session id, which every request checks against the database. fast-jwt verifies
 * synchronously in ~10 µs (WebCrypto-based libraries take ~100 µs), which matters on every call.
 * Expiry is compared with the injected clock, so tests move time instead of waiting.
 */
export interface AccessClaims {
  userId: string
  sessionId: string
}

const TYPE = 'at+jwt'

export class AccessTokens {
  private readonly signer: (payload: Record<string, unknown>) => string
  private readonly verifier: (token: string) => { header: Record<string, unknown>; payload: Record<string, unknown> }

  constructor(
    key: Uint8Array,
    private readonly ttlSeconds: number,
    private readonly clock: Clock,
  ) {
    const secret = Buffer.from(key)
    this.signer = createSigner({ key: secret, algorithm: 'HS256', header: { alg: 'HS256', typ: TYPE } })
    this.verifier = createVerifier({
      key: secret,
      algorithms: ['HS256'],
      complete: true,
      // Time is checked below against the injected clock.
      ignoreExpiration: true,
      ignoreNotBefore: true,
      cache: false,
    }) as typeof this.verifier
  }

  sign(claims: AccessClaims): string {
    const now = Math.floor(this.clock().getTime() / 1000)
    return this.signer({ sub: claims.userId, sid: claims.sessionId, iat: now, exp: now + this.ttlSeconds, jti: crypto.randomUUID() })
  }

  /** The claims of a valid token, or null for anything else (expired, tampered, wrong kind). */
  verify(token: string): AccessClaims | null {
    try {
      const { header, payload } = this.verifier(token)
      if (header.typ !== TYPE) return null
      const now = this.clock().getTime() / 1000
      if (typeof payload.exp !== 'number' || payload.exp <= now) return null
      if (typeof payload.iat !== 'number' || payload.iat > now + 60) return null
      if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null
      return { userId: payload.sub, sessionId: payload.sid }
    } catch {
      return null
    }
  }
}
