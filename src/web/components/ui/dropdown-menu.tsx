import { type CSSProperties, type ReactNode, useEffect, useId, useLayoutEffect, useRef, useState } from 'react'
import { createPortal } from 'react-dom'
import { DropdownMenu } from 'radix-ui'
import { cn } from '~web/lib/cn'

/**
 * A menu opened from a button (Radix: arrow keys, typeahead, Escape, focus back to the button).
 * Items that are unavailable stay focusable and say why in a tooltip (see `MenuItem`'s `reason`).
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

const itemClass = 'flex w-full cursor-pointer items-center gap-2 rounded-sm px-2 py-2 text-sm outline-none select-none data-highlighted:bg-subtle'

/**
 * A menu entry. With `reason`, the entry is unavailable: it is still reachable with the keyboard,
 * announced as disabled, and its reason is its description at all times and a tooltip while the
 * entry is highlighted (the pointer on it, keyboard focus on it, or a tap). The entry is named by
 * its own label only, so the reason is not read twice.
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
  const generatedId = useId()
  const base = id ?? generatedId
  const labelId = reason ? `${base}-label` : undefined
  const reasonId = reason ? `${base}-reason` : undefined
  // Radix highlights an entry by focusing it, for the pointer as for the keyboard.
  const [highlighted, setHighlighted] = useState<HTMLElement | null>(null)
  return (
    <DropdownMenu.Item
      id={id}
      aria-disabled={reason ? true : undefined}
      aria-labelledby={labelId}
      aria-describedby={reasonId}
      onFocus={(event) => setHighlighted(event.currentTarget)}
      onBlur={() => setHighlighted(null)}
      onSelect={(event) => {
        if (reason) {
          event.preventDefault()
          return
        }
        onSelect?.()
      }}
      className={cn(itemClass, reason ? 'cursor-not-allowed' : undefined, danger && !reason ? 'text-danger dark:text-red-400' : undefined)}
    >
      <span id={labelId} className={cn('flex items-center gap-2', reason ? 'opacity-70' : undefined)}>
        {children}
      </span>
      {reason && reasonId ? (
        <Tooltip id={reasonId} anchor={highlighted}>
          {reason}
        </Tooltip>
      ) : null}
    </DropdownMenu.Item>
  )
}

const GAP = 8

/**
 * The reason of an unavailable entry, shown beside its menu (on the side of the page, where
 * there is room) or else under the entry, above it near the bottom of the screen. Outside the
 * menu in the page, so the entry's visible text stays its label alone (WCAG 2.5.3); in the page
 * as long as the menu is open, hidden while not shown, as the entry's description. It is added
 * once the menu has opened: the open menu hides what is already in the page from assistive
 * technology, and this is part of the menu.
 */
function Tooltip({ id, anchor, children }: { id: string; anchor: HTMLElement | null; children: ReactNode }) {
  const ref = useRef<HTMLSpanElement>(null)
  const [mounted, setMounted] = useState(false)
  const [place, setPlace] = useState<CSSProperties>({})
  // Deliberately a second render: added after the menu's first commit, so that the menu's hiding
  // of the rest of the page from assistive technology has run and this is not hidden with it.
  // eslint-disable-next-line react-hooks/set-state-in-effect
  useEffect(() => setMounted(true), [])
  useLayoutEffect(() => {
    const tip = ref.current
    if (!anchor || !tip) return
    const item = anchor.getBoundingClientRect()
    const menu = (anchor.closest('[role="menu"]') ?? anchor).getBoundingClientRect()
    const width = Math.min(240, window.innerWidth - 2 * GAP)
    tip.style.width = `${width}px`
    const height = tip.getBoundingClientRect().height
    const clampTop = (top: number) => Math.max(GAP, Math.min(top, window.innerHeight - height - GAP))
    const clampLeft = (left: number) => Math.max(GAP, Math.min(left, window.innerWidth - width - GAP))
    if (menu.left - GAP >= width + GAP) setPlace({ width, left: menu.left - GAP - width, top: clampTop(item.top + item.height / 2 - height / 2) })
    else if (window.innerWidth - menu.right - GAP >= width + GAP) setPlace({ width, left: menu.right + GAP, top: clampTop(item.top + item.height / 2 - height / 2) })
    else if (item.bottom + 4 + height <= window.innerHeight - GAP) setPlace({ width, left: clampLeft(menu.left), top: item.bottom + 4 })
    else setPlace({ width, left: clampLeft(menu.left), top: Math.max(GAP, item.top - 4 - height) })
  }, [anchor, mounted])
  if (!mounted) return null
  return createPortal(
    <span
      ref={ref}
      id={id}
      role="tooltip"
      hidden={!anchor}
      style={place}
      className="pointer-events-none fixed z-50 rounded-md bg-fg px-2.5 py-1.5 text-xs leading-snug text-card shadow-lg"
    >
      {children}
    </span>,
    document.body,
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
