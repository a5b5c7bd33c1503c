import type { Tokens, User } from '~shared/schemas/user'
import { CSRF_STORAGE_KEY } from '~web/config/app'

/**
 * The session as the browser keeps it: `accessToken`, `refreshToken` and `user`
 * in localStorage, plus the CSRF token. Every tab reads the same store, so a refresh or a sign-out
 * in one tab is seen by the others.
 */
export const SESSION_KEYS = {
  accessToken: 'accessToken',
  refreshToken: 'refreshToken',
  user: 'user',
  csrfToken: CSRF_STORAGE_KEY,
} as const

export interface KeyValueStore {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

export interface AuthStorage {
  accessToken(): string | null
  refreshToken(): string | null
  csrfToken(): string | null
  user(): User | null
  saveSession(session: Tokens & { user: User }): void
  saveTokens(tokens: Partial<Tokens> & Pick<Tokens, 'accessToken' | 'refreshToken'>): void
  saveCsrfToken(token: string): void
  saveUser(user: User): void
  clear(): void
}

/** A store that never throws: localStorage can be missing or refuse writes (private modes, quotas). */
export function safeStore(store: () => KeyValueStore | undefined): KeyValueStore {
  const memory = new Map<string, string>()
  const attempt = <T>(action: (s: KeyValueStore) => T, fallback: () => T): T => {
    try {
      const target = store()
      return target ? action(target) : fallback()
    } catch {
      return fallback()
    }
  }
  return {
    getItem: (key) =>
      attempt(
        (s) => s.getItem(key),
        () => memory.get(key) ?? null,
      ),
    setItem: (key, value) =>
      attempt(
        (s) => s.setItem(key, value),
        () => void memory.set(key, value),
      ),
    removeItem: (key) =>
      attempt(
        (s) => s.removeItem(key),
        () => void memory.delete(key),
      ),
  }
}

export const browserStore = safeStore(() => (typeof window === 'undefined' ? undefined : window.localStorage))

export function createAuthStorage(store: KeyValueStore = browserStore): AuthStorage {
  const read = (key: string) => store.getItem(key) || null
  const saveUser = (user: User) => store.setItem(SESSION_KEYS.user, JSON.stringify(user))
  const saveTokens: AuthStorage['saveTokens'] = ({ accessToken, refreshToken, csrfToken }) => {
    store.setItem(SESSION_KEYS.refreshToken, refreshToken)
    if (csrfToken) store.setItem(SESSION_KEYS.csrfToken, csrfToken)
    // Written last: other tabs treat a new access token as "the session changed".
    store.setItem(SESSION_KEYS.accessToken, accessToken)
  }
  return {
    accessToken: () => read(SESSION_KEYS.accessToken),
    refreshToken: () => read(SESSION_KEYS.refreshToken),
    csrfToken: () => read(SESSION_KEYS.csrfToken),
    user() {
      const raw = read(SESSION_KEYS.user)
      if (!raw) return null
      try {
        const user = JSON.parse(raw) as User | null
        return user && typeof user === 'object' && typeof user.id === 'string' ? user : null
      } catch {
        return null
      }
    },
    saveSession({ accessToken, refreshToken, csrfToken, user }) {
      saveUser(user)
      saveTokens({ accessToken, refreshToken, csrfToken })
    },
    saveTokens,
    saveCsrfToken: (token) => store.setItem(SESSION_KEYS.csrfToken, token),
    saveUser,
    clear() {
      for (const key of Object.values(SESSION_KEYS)) store.removeItem(key)
    },
  }
}

export const authStorage = createAuthStorage()
