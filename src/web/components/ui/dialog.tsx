import { type ReactNode, useLayoutEffect, useRef } from 'react'
import { Dialog as RadixDialog } from 'radix-ui'
import X from 'lucide-react/icons/x'
import { cn } from '~web/lib/cn'
import { useI18n } from '~web/lib/i18n'

/**
 * A modal dialog (Radix: focus trapped, Escape closes, title and description announced).
 * `side="left"` makes it the slide-in sheet of the small-screen menu. Our dialogs are opened by
 * buttons that are not Radix triggers, so Radix would leave focus on the page's body when one
 * closes. Focus goes instead to `returnFocus()` when it names an element on the page, else back
 * to what had focus when the dialog opened; a menu item is gone by then, so for one of those it
 * is the button that opened its menu.
 */
export function Dialog({
  open,
  onOpenChange,
  title,
  description,
  children,
  side,
  returnFocus,
}: {
  open: boolean
  onOpenChange: (open: boolean) => void
  title: ReactNode
  description?: ReactNode
  children: ReactNode
  side?: 'left'
  /** Where focus goes when the dialog closes (asked at that moment). */
  returnFocus?: () => HTMLElement | null | undefined
}) {
  const { t } = useI18n()
  const focusedBefore = useRef<Element | null>(null)
  useLayoutEffect(() => {
    if (open) focusedBefore.current = openerOf(document.activeElement)
  }, [open])
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="fixed inset-0 z-40 bg-black/50" />
        <RadixDialog.Content
          className={cn(
            'fixed z-50 overflow-y-auto border border-line bg-card p-4 text-fg shadow-lg sm:p-6',
            side === 'left'
              ? 'inset-y-0 left-0 w-72 max-w-[85vw]'
              : 'top-1/2 left-1/2 max-h-[90dvh] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 rounded-lg',
          )}
          {...(description ? {} : { 'aria-describedby': undefined })}
          onCloseAutoFocus={(event) => {
            const target = [returnFocus?.(), focusedBefore.current].find(
              (candidate): candidate is HTMLElement => candidate instanceof HTMLElement && candidate.isConnected && candidate !== document.body,
            )
            if (target) {
              event.preventDefault()
              target.focus()
            }
          }}
        >
          <div className="mb-4 space-y-1 pr-8">
            <RadixDialog.Title className="text-lg font-semibold">{title}</RadixDialog.Title>
            {description ? <RadixDialog.Description className="text-sm text-muted">{description}</RadixDialog.Description> : null}
          </div>
          {children}
          <RadixDialog.Close className="absolute top-3 right-3 rounded-md p-2 text-muted hover:bg-subtle hover:text-fg" aria-label={t('common.close')}>
            <X aria-hidden className="size-4" />
          </RadixDialog.Close>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  )
}

/** The element that stands for `active` once it is gone: for an item of a Radix menu, its trigger. */
function openerOf(active: Element | null): Element | null {
  const labelledBy = active?.closest('[role="menu"]')?.getAttribute('aria-labelledby')
  return (labelledBy && document.getElementById(labelledBy)) || active
}
