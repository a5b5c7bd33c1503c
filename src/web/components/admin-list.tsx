import { type ComponentType, type ReactNode, useCallback, useRef } from 'react'
import Plus from 'lucide-react/icons/plus'
import { Button } from '~web/components/ui/button'
import { Card, CardContent } from '~web/components/ui/card'
import { PageSpinner } from '~web/components/ui/spinner'
import { ErrorState } from '~web/components/ui/states'

/**
 * What the admin pages that list things they make (Applications, Sign-in methods, Webhooks) share:
 * the "New" button of the page header, the list's loading, failed and empty states, and where focus
 * goes back when a dialog closes. Each row's actions button carries `data-row-actions={id}`, the list
 * `data-list`, and the New button `data-new`, all within the page's `area`.
 */

/**
 * Focus after a dialog: the actions button of the row it was opened from (`returnTo(id)` before
 * opening it; a new item's id once created; null for the New button), else the list, else the New
 * button (the row was deleted).
 */
export function useReturnFocus() {
  const area = useRef<HTMLDivElement>(null)
  const rowId = useRef<string | null>(null)
  const returnTo = useCallback((id: string | null) => {
    rowId.current = id
  }, [])
  const returnFocus = useCallback(() => {
    const root = area.current
    if (!root) return null
    const row = [...root.querySelectorAll<HTMLElement>('[data-row-actions]')].find((button) => button.dataset.rowActions === rowId.current)
    return row ?? root.querySelector<HTMLElement>('[data-list]') ?? root.querySelector<HTMLElement>('[data-new]')
  }, [])
  return { area, returnTo, returnFocus }
}

/** The page header's button that opens the form for a new item. */
export function NewButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <Button data-new onClick={onClick}>
      <Plus aria-hidden className="size-4" />
      {label}
    </Button>
  )
}

interface ListQuery<T> {
  isPending: boolean
  isError: boolean
  data: T[] | undefined
  refetch: () => unknown
}

/**
 * The list, or why there is none: loading, failed (with Retry), empty. `framed` puts every state
 * in one card (a table); unframed, only the empty state has one (the items are cards themselves).
 */
export function ListStates<T>({
  query,
  loadError,
  empty,
  framed = true,
  children,
}: {
  query: ListQuery<T>
  loadError: string
  empty: ReactNode
  framed?: boolean
  children: (items: T[]) => ReactNode
}) {
  const items = query.data ?? []
  const inCard = (content: ReactNode) => (
    <Card>
      <CardContent className="pt-4 sm:pt-6">{content}</CardContent>
    </Card>
  )
  const body = query.isPending ? (
    <PageSpinner />
  ) : query.isError && !query.data ? (
    <ErrorState message={loadError} onRetry={() => void query.refetch()} />
  ) : items.length === 0 ? (
    framed ? (
      empty
    ) : (
      inCard(empty)
    )
  ) : (
    children(items)
  )
  return framed ? inCard(body) : body
}

/** Nothing made yet: what such an item is, and, where there is one, the guide (a file of the product's source, named, not linked: decision 0015). */
export function ListEmpty({
  icon: Icon,
  title,
  lines,
  guide,
}: {
  icon?: ComponentType<{ className?: string; 'aria-hidden'?: boolean }>
  title: string
  lines: string[]
  guide?: { text: string; file: string }
}) {
  return (
    <div className="flex flex-col items-center gap-2 px-4 py-10 text-center">
      {Icon ? <Icon aria-hidden className="size-8 text-muted" /> : null}
      <p className="font-medium">{title}</p>
      {lines.map((line) => (
        <p key={line} className="max-w-prose text-sm text-muted">
          {line}
        </p>
      ))}
      {guide ? (
        <p className="max-w-prose text-sm text-muted">
          {guide.text} <code className="font-mono text-fg">{guide.file}</code>
        </p>
      ) : null}
    </div>
  )
}

/** A column's header in a list table (the header row is hidden on a phone, where each cell names its column). */
export function ColumnHeader({ children }: { children: ReactNode }) {
  return (
    <th scope="col" className="px-2 py-2 font-medium">
      {children}
    </th>
  )
}

/** A cell of a list table: on a phone, its column's name on the left and its value on the right. */
export function LabelledCell({ label, children }: { label: string; children: ReactNode }) {
  return (
    <td className="flex items-center justify-between gap-3 py-1 md:table-cell md:px-2 md:py-3">
      <span className="text-muted md:hidden">{label}</span>
      <span className="min-w-0 text-right md:text-left">{children}</span>
    </td>
  )
}
