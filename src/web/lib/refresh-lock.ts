import { REFRESH_LOCK_NAME } from '~web/config/app'

/**
 * Runs one session refresh at a time. In browsers with the Web Locks API the lock is shared by
 * every tab of the origin; elsewhere it only orders the refreshes of this tab (the server then
 * still accepts a just-rotated refresh token for a few seconds, so parallel tabs survive).
 * The task learns whether it had to wait: then another holder was refreshing just before.
 */
export interface RefreshLock {
  run<T>(task: (waited: boolean) => Promise<T>): Promise<T>
}

interface LockManagerLike {
  request<T>(name: string, callback: (lock: unknown) => Promise<T>): Promise<T>
  request<T>(name: string, options: { ifAvailable: boolean }, callback: (lock: unknown) => Promise<T>): Promise<T>
}

export function inTabLock(): RefreshLock {
  let tail: Promise<unknown> = Promise.resolve()
  let busy = 0
  return {
    run(task) {
      const waited = busy > 0
      busy += 1
      const result = tail.then(() => task(waited)).finally(() => (busy -= 1))
      tail = result.catch(() => undefined)
      return result
    },
  }
}

export function webLock(locks: LockManagerLike, name = REFRESH_LOCK_NAME): RefreshLock {
  return {
    async run(task) {
      const immediate = await locks.request(name, { ifAvailable: true }, async (lock) => (lock ? { value: await task(false) } : null))
      return immediate ? immediate.value : locks.request(name, () => task(true))
    },
  }
}

export function browserRefreshLock(): RefreshLock {
  const locks = typeof navigator === 'undefined' ? undefined : (navigator as { locks?: LockManagerLike }).locks
  return locks && typeof locks.request === 'function' ? webLock(locks) : inTabLock()
}
