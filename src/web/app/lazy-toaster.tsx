import { lazy, Suspense, useSyncExternalStore } from 'react'
import { toasterWanted } from '~web/lib/toast'

const Toaster = lazy(() => import('./toaster').then((m) => ({ default: m.AppToaster })))

/** Mounts the toaster once something asked for a toast: it is not part of the first load. */
export function LazyToaster() {
  const wanted = useSyncExternalStore(toasterWanted.subscribe, toasterWanted.get, toasterWanted.get)
  if (!wanted) return null
  return (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  )
}
