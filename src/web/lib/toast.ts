import type * as SonnerModule from 'sonner'
import { TOAST_ERROR_MS, TOAST_SUCCESS_MS } from '~shared/constants'

/**
 * Toasts: success 2 s, error 4 s, loading until dismissed. The toast library is
 * loaded on first use, after the page has rendered, so it is not part of the sign-in page's
 * first load; toasts raised before the toaster mounts are shown as soon as it does.
 */
type Sonner = typeof SonnerModule

let loading: Promise<Sonner> | null = null
let wanted = false
const listeners = new Set<() => void>()

/** Whether the app should mount its toaster (true from the first toast on). */
export const toasterWanted = {
  get: () => wanted,
  subscribe(listener: () => void) {
    listeners.add(listener)
    return () => listeners.delete(listener)
  },
}

export function loadSonner(): Promise<Sonner> {
  if (!wanted) {
    wanted = true
    listeners.forEach((listener) => listener())
  }
  return (loading ??= import('sonner'))
}

export const notify = {
  success(message: string): void {
    void loadSonner().then(({ toast }) => toast.success(message, { duration: TOAST_SUCCESS_MS }))
  },
  error(message: string): void {
    void loadSonner().then(({ toast }) => toast.error(message, { duration: TOAST_ERROR_MS }))
  },
  /** Returns a function that dismisses the toast. */
  loading(message: string): () => void {
    const id = loadSonner().then(({ toast }) => toast.loading(message, { duration: Number.POSITIVE_INFINITY }))
    return () => void Promise.all([loadSonner(), id]).then(([{ toast }, toastId]) => toast.dismiss(toastId))
  },
}
