import { useSyncExternalStore } from 'react'
import type { AuthResult, User } from '~shared/schemas/user'
import { type ApiClient, api, onAccountBlocked, onSessionEnded } from './api-client'
import { type AuthStorage, SESSION_KEYS, authStorage } from './auth-storage'
import { type BlockedState, blockedStateOf, isApiError } from './failures'

/**
 * Who is signed in. On start, a stored access token loads the current
 * user; "authenticated" means a loaded user and a stored access token. Every tab shares the
 * stored session: signing in or out in one tab is seen by the others through `storage` events.
 */

export interface SessionState {
  status: 'loading' | 'ready'
  user: User | null
}

export interface SessionView extends SessionState {
  authenticated: boolean
  /** Present when the session ended without this tab signing out: the guard says why (`guard.ts`). */
  ended?: SessionEnd
}

/**
 * How a session ended other than by signing out here: signed out elsewhere or expired
 * (`expired`), or ended by a suspension or deactivation of the account (`blocked`).
 */
export type SessionEnd = { kind: 'expired' } | { kind: 'blocked'; state: BlockedState; email: string | null }

const STATUS_OF: Record<BlockedState, User['status']> = { inactive: 'INACTIVE', suspended: 'SUSPENDED' }

export function createSession(client: ApiClient, storage: AuthStorage) {
  let state: SessionState = { status: storage.accessToken() ? 'loading' : 'ready', user: null }
  let view: SessionView = { ...state, authenticated: false }
  let ended: SessionEnd | undefined
  /** The address of the last user seen, for the account-status page once storage is cleared. */
  let lastEmail = storage.user()?.email ?? null
  const listeners = new Set<() => void>()

  const set = (next: SessionState) => {
    state = next
    if (next.user) lastEmail = next.user.email
    view = { ...next, authenticated: !!next.user && !!storage.accessToken(), ...(ended ? { ended } : {}) }
    listeners.forEach((listener) => listener())
  }

  /** The session is gone without this tab signing out: remember why, for the sign-in page. */
  const end = (how: SessionEnd) => {
    ended = how
    set({ status: 'ready', user: null })
  }

  const markBlocked = (blocked: BlockedState) => {
    const user = state.user ?? storage.user()
    if (!user) return
    const updated = { ...user, status: STATUS_OF[blocked] }
    storage.saveUser(updated)
    set({ status: 'ready', user: updated })
  }

  return {
    get: (): SessionView => view,
    subscribe(listener: () => void): () => void {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },

    /** Loads the current user when a token is stored. */
    async start(): Promise<void> {
      if (!storage.accessToken()) return set({ status: 'ready', user: null })
      set({ status: 'loading', user: null })
      try {
        const { data } = await client.get<User>('/auth/me')
        storage.saveUser(data)
        set({ status: 'ready', user: data })
      } catch (error) {
        const blocked = blockedStateOf(error)
        if (blocked) return markBlocked(blocked)
        // Unreachable server: keep the stored session rather than signing the user out.
        const stored = storage.user()
        if (isApiError(error) && (error.isNetwork || error.status >= 500) && stored && storage.accessToken()) {
          return set({ status: 'ready', user: stored })
        }
        storage.clear()
        set({ status: 'ready', user: null })
      }
    },

    signIn(result: AuthResult): void {
      ended = undefined
      storage.saveSession(result)
      set({ status: 'ready', user: result.user })
    },

    /** Ends the session on the server when possible, and always here. */
    async signOut(): Promise<void> {
      try {
        if (storage.accessToken()) await client.post('/auth/logout')
      } catch {
        // Signing out never fails for the user: the local session goes regardless.
      } finally {
        ended = undefined
        storage.clear()
        set({ status: 'ready', user: null })
      }
    },

    /** The account is gone (its owner deleted it here): the session ends in every tab, with no call to make. */
    forget(): void {
      ended = undefined
      storage.clear()
      set({ status: 'ready', user: null })
    },

    /** The API client found the session over (storage is already cleared). */
    sessionEnded(blocked: BlockedState | null): void {
      end(blocked ? { kind: 'blocked', state: blocked, email: state.user?.email ?? lastEmail } : { kind: 'expired' })
    },

    updateUser(user: User): void {
      storage.saveUser(user)
      set({ status: 'ready', user })
    },

    markBlocked,

    /** The stored session changed (another tab, or the API client cleared it). */
    syncFromStorage(): void {
      if (!storage.accessToken()) {
        // Another tab signed out, or found the session over: this tab's session ended too.
        if (state.user) end(ended ?? { kind: 'expired' })
        else if (state.status === 'loading') set({ status: 'ready', user: null })
        return
      }
      const stored = storage.user()
      if (stored && JSON.stringify(stored) !== JSON.stringify(state.user)) set({ status: 'ready', user: stored })
    },
  }
}

export type Session = ReturnType<typeof createSession>

export const session = createSession(api, authStorage)

onSessionEnded((blocked) => session.sessionEnded(blocked))
onAccountBlocked((state) => session.markBlocked(state))

if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    const keys: string[] = [SESSION_KEYS.accessToken, SESSION_KEYS.user]
    if (event.key === null || keys.includes(event.key)) session.syncFromStorage()
  })
}

export function useSession(): SessionView {
  return useSyncExternalStore(session.subscribe, session.get, session.get)
}
