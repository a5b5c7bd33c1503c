import type { TestApp } from '../../support/test-app'

/**
 * Counts the Argon2 work a request causes, by wrapping the app's own hasher: "the same time" for
 * an unknown address and a wrong password is proved structurally, as the same number of hashes
 * and verifications, instead of with timings (those are measured in bench/enumeration.ts).
 */
export interface HashingWork {
  hash: number
  verify: number
}

export function countHashing(t: TestApp) {
  const hasher = t.ctx.hasher
  const original = { hash: hasher.hash, verify: hasher.verify }
  const counts: HashingWork = { hash: 0, verify: 0 }
  hasher.hash = (password) => {
    counts.hash++
    return original.hash.call(hasher, password)
  }
  // verifyNothing (the unknown-address path) goes through this.verify too.
  hasher.verify = (passwordHash, password) => {
    counts.verify++
    return original.verify.call(hasher, passwordHash, password)
  }
  return {
    /** The work done since the last call, and the counters set back to zero. */
    take(): HashingWork {
      const done = { ...counts }
      counts.hash = 0
      counts.verify = 0
      return done
    },
    restore() {
      hasher.hash = original.hash
      hasher.verify = original.verify
    },
  }
}
