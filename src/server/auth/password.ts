import os from 'node:os'
import { hash, verify } from '@node-rs/argon2'
import pLimit from 'p-limit'
import { serviceUnavailable } from '~server/http/errors'
import { type ForeignHash, foreignHashOfKind, isHashProblem, matchesForeignHash, readForeignHash } from './password-hashes'

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

/** The product's own kind of hash, named as imported kinds are (auth/password-hashes.ts). */
export const NATIVE_KIND = `argon2id v=19 m=${ARGON2_OPTIONS.memoryCost} t=${ARGON2_OPTIONS.timeCost} p=${ARGON2_OPTIONS.parallelism}`

/** Whether a stored hash is in the product's own form, with today's parameters. */
export const isNativeHash = (passwordHash: string) => passwordHash.startsWith(PARAMETERS)

/**
 * What an account without a password stores (one imported without a hash): no check passes, and a
 * sign-in with it costs what a wrong password costs.
 */
export const NO_PASSWORD = '!no-password'

export interface PasswordHasherOptions {
  concurrency?: number
  maxQueue?: number
  /** Told each time a request is turned away because the queue is full (counted by the metrics). */
  onReject?: () => void
  /**
   * The kinds of imported hash some account may still hold (decision 0552): a failed check does
   * the work of each, so that its time tells no kind of account from another. None by default.
   */
  importedKinds?: () => Promise<readonly string[]>
  /** Told of every check made, by the kind of hash checked (counted by the metrics). */
  onCheck?: (kind: string) => void
}

export class PasswordHasher {
  private readonly limit: ReturnType<typeof pLimit>
  readonly maxQueue: number
  private readonly onReject: (() => void) | undefined
  private readonly importedKinds: () => Promise<readonly string[]>
  private readonly onCheck: (kind: string) => void
  private dummyHash: Promise<string> | undefined
  /** A hash of a password nobody kept, per imported kind: a failed check's padding is checked against it. */
  private readonly foreignDummies = new Map<string, Promise<ForeignHash>>()

  constructor(options: PasswordHasherOptions = {}) {
    this.limit = pLimit(options.concurrency ?? os.availableParallelism())
    this.maxQueue = options.maxQueue ?? 512
    this.onReject = options.onReject
    this.importedKinds = options.importedKinds ?? (async () => [])
    this.onCheck = options.onCheck ?? (() => {})
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

  /**
   * Whether the password is the one of the stored hash: the product's Argon2id, or a hash another
   * system made, checked with its own algorithm and parameters (decision 0551). A wrong password
   * then also does the work of every other kind of hash some account holds, the product's own
   * included, so that every failure costs the same whatever the account (decision 0552). A stored
   * value that is no hash (an account without a password) always fails, at that same cost.
   */
  async verify(passwordHash: string, password: string): Promise<boolean> {
    const foreign = isNativeHash(passwordHash) ? null : readForeignHash(passwordHash)
    let own: string | null = null
    let matches = false
    if (foreign === null) {
      own = NATIVE_KIND
      matches = await this.check(NATIVE_KIND, () => verify(passwordHash, password))
    } else if (!isHashProblem(foreign)) {
      own = foreign.kind
      matches = await this.check(own, () => matchesForeignHash(foreign, password))
    }
    if (matches) return true
    for (const kind of [NATIVE_KIND, ...(await this.importedKinds())]) {
      if (kind !== own) await this.checkAgainstNobody(kind, password)
    }
    return false
  }

  /** Whether a stored hash should be replaced by the product's own once its password is known: another system's, or older parameters. */
  needsRehash(passwordHash: string): boolean {
    return !isNativeHash(passwordHash) && passwordHash !== NO_PASSWORD && !isHashProblem(readForeignHash(passwordHash))
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

  /** One check of a password against a hash of the kind, within the bound on concurrent hashing. */
  private check(kind: string, task: () => Promise<boolean>): Promise<boolean> {
    return this.run(async () => {
      this.onCheck(kind)
      try {
        return await task()
      } catch {
        return false
      }
    })
  }

  /** The cost of one check of that kind, spent on a hash of a password nobody kept. */
  private async checkAgainstNobody(kind: string, password: string): Promise<void> {
    if (kind === NATIVE_KIND) {
      this.dummyHash ??= DUMMY_HASH.startsWith(PARAMETERS) ? Promise.resolve(DUMMY_HASH) : hash('not the password of anyone', ARGON2_OPTIONS)
      const dummy = await this.dummyHash
      await this.check(kind, () => verify(dummy, password))
      return
    }
    const made = this.foreignDummies.get(kind)
    if (made) {
      const dummy = await made
      await this.check(kind, () => matchesForeignHash(dummy, password))
      return
    }
    // The first time, making the hash is the check's work: it costs what one check costs.
    const making = this.run(() => (this.onCheck(kind), foreignHashOfKind(kind)))
    this.foreignDummies.set(kind, making)
    try {
      await making
    } catch (error) {
      this.foreignDummies.delete(kind)
      throw error
    }
  }

  private run<T>(task: () => Promise<T>): Promise<T> {
    if (this.limit.pendingCount >= this.maxQueue) {
      this.onReject?.()
      return Promise.reject(serviceUnavailable('The server is busy. Please try again in a moment.'))
    }
    return this.limit(task)
  }
}
