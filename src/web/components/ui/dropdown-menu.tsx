import type { ReactNode } from 'react'
import { DropdownMenu } from 'radix-ui'
import { cn } from '~web/lib/cn'

/**
 * A menu opened from a button (Radix: arrow keys, typeahead, Escape, focus back to the button).
 * Items that are unavailable stay focusable and say why (see `MenuItem`'s `reason`).
 */
export const Menu = DropdownMenu.Root
export const MenuTrigger = DropdownMenu.Trigger

export function MenuContent({ children, align = 'end' }: { children: ReactNode; align?: 'start' | 'end' }) {
  return (
    <DropdownMenu.Portal>
      <DropdownMenu.Content
        align={align}
        sideOffset={6}
        collisionPadding={8}
        className="z-50 max-w-[calc(100vw-1rem)] min-w-48 rounded-md border border-line bg-card p-1 text-fg shadow-lg"
      >
        {children}
      </DropdownMenu.Content>
    </DropdownMenu.Portal>
  )
}

const itemClass =
  'flex w-full cursor-pointer items-center gap-2 rounded-sm px-2 py-2 text-sm outline-none select-none data-highlighted:bg-subtle'

/**
 * A menu entry. With `reason`, the entry is unavailable: it is still reachable with the keyboard,
 * announced as disabled, and its reason is shown under it and given as its description.
 */
export function MenuItem({
  children,
  onSelect,
  reason,
  danger,
  id,
}: {
  children: ReactNode
  onSelect?: () => void
  reason?: string | null
  danger?: boolean
  id?: string
}) {
  const reasonId = reason && id ? `${id}-reason` : undefined
  return (
    <DropdownMenu.Item
      id={id}
      aria-disabled={reason ? true : undefined}
      aria-describedby={reasonId}
      onSelect={(event) => {
        if (reason) {
          event.preventDefault()
          return
        }
        onSelect?.()
      }}
      className={cn(itemClass, reason ? 'cursor-not-allowed flex-col items-start gap-0.5' : undefined, danger && !reason ? 'text-danger dark:text-red-400' : undefined)}
    >
      <span className={cn('flex items-center gap-2', reason ? 'opacity-70' : undefined)}>{children}</span>
      {reason ? (
        <span id={reasonId} className="text-xs text-muted">
          {reason}
        </span>
      ) : null}
    </DropdownMenu.Item>
  )
}

export function MenuLinkItem({ children, onSelect }: { children: ReactNode; onSelect: () => void }) {
  return (
    <DropdownMenu.Item onSelect={onSelect} className={itemClass}>
      {children}
    </DropdownMenu.Item>
  )
}

export function MenuLabel({ children }: { children: ReactNode }) {
  return <DropdownMenu.Label className="px-2 py-1.5">{children}</DropdownMenu.Label>
}

export function MenuSeparator() {
  return <DropdownMenu.Separator className="my-1 h-px bg-line" />
}

export function MenuRadioGroup<T extends string>({ value, onChange, children }: { value: T; onChange: (value: T) => void; children: ReactNode }) {
  return (
    <DropdownMenu.RadioGroup value={value} onValueChange={(next) => onChange(next as T)}>
      {children}
    </DropdownMenu.RadioGroup>
  )
}

export function MenuRadioItem({ value, children }: { value: string; children: ReactNode }) {
  return (
    <DropdownMenu.RadioItem value={value} className={cn(itemClass, 'pl-8 relative')}>
      <DropdownMenu.ItemIndicator className="absolute left-2 inline-flex size-4 items-center justify-center">
        <span aria-hidden className="size-2 rounded-full bg-current" />
      </DropdownMenu.ItemIndicator>
      {children}
    </DropdownMenu.RadioItem>
  )
}
