import os from 'node:os'
import { hash, verify } from '@node-rs/argon2'
import pLimit from 'p-limit'
import { serviceUnavailable } from '../http/errors'

/**
 * Argon2id hashing (19 MiB, t=2, p=1: OWASP's first recommended setting). Each hash takes ~20 ms
 * of one core and 19 MiB, so hashing runs at most one per core; waiting requests queue, and past
 * a bound they are turned away with a 503 instead of exhausting memory or latency.
 */
const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

/**
 * The hash an unknown address is checked against: made once, offline, from random bytes nobody
 * kept, with the parameters above. Being ready from the start, the first unknown address costs
 * one verification like every later one, not a hash and a verification.
 */
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$eNJEnZozEeVTt1rpL2vGkw$PT1h7MEecv7Jhn1G622PF9rR7fV6xnZIVeIDVDUSO6I'
const PARAMETERS = `$argon2id$v=19$m=${ARGON2_OPTIONS.memoryCost},t=${ARGON2_OPTIONS.timeCost},p=${ARGON2_OPTIONS.parallelism}$`

export interface PasswordHasherOptions {
  concurrency?: number
  maxQueue?: number
  /** Told each time a request is turned away because the queue is full (counted by the metrics). */
  onReject?: () => void
}

export class PasswordHasher {
  private readonly limit: ReturnType<typeof pLimit>
  readonly maxQueue: number
  private readonly onReject: (() => void) | undefined
  private dummyHash: Promise<string> | undefined

  constructor(options: PasswordHasherOptions = {}) {
    this.limit = pLimit(options.concurrency ?? os.availableParallelism())
    this.maxQueue = options.maxQueue ?? 512
    this.onReject = options.onReject
  }

  /** Hashes running now (at most one per core). */
  get running(): number {
    return this.limit.activeCount
  }

  /** Hashes waiting for a core. */
  get waiting(): number {
    return this.limit.pendingCount
  }

  hash(password: string): Promise<string> {
    return this.run(() => hash(password, ARGON2_OPTIONS))
  }

  async verify(passwordHash: string, password: string): Promise<boolean> {
    return this.run(async () => {
      try {
        return await verify(passwordHash, password)
      } catch {
        return false
      }
    })
  }

  /**
   * Spends the same time as a real verification, for unknown accounts: the answer for an unknown
   * address must not come back faster than the one for a wrong password.
   */
  async verifyNothing(password: string): Promise<false> {
    // Should the parameters change, a dummy with the new ones is made (once) instead.
    this.dummyHash ??= DUMMY_HASH.startsWith(PARAMETERS) ? Promise.resolve(DUMMY_HASH) : hash('not the password of anyone', ARGON2_OPTIONS)
    await this.verify(await this.dummyHash, password)
    return false
  }

  private run<T>(task: () => Promise<T>): Promise<T> {
    if (this.limit.pendingCount >= this.maxQueue) {
      this.onReject?.()
      return Promise.reject(serviceUnavailable('The server is busy. Please try again in a moment.'))
    }
    return this.limit(task)
  }
}
