import { APP_NAME } from '~web/config/app'
import { cn } from '~web/lib/cn'

/** The product's mark: a person on a blue tile (the favicon's drawing). */
export function BrandMark({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" aria-hidden focusable="false" className={cn('shrink-0', className)}>
      <rect width="32" height="32" rx="7" fill="#1d4ed8" />
      <circle cx="16" cy="12" r="5" fill="#fff" />
      <path d="M7 26c1.5-5 5-7 9-7s7.5 2 9 7" fill="#fff" />
    </svg>
  )
}

/** The mark and the product's name (APP_NAME), on the signed-out pages and in the top bar. */
export function Brand({ className }: { className?: string }) {
  return (
    <span className={cn('inline-flex min-w-0 items-center gap-2 text-lg font-bold tracking-tight', className)}>
      <BrandMark className="size-7" />
      <span className="truncate">{APP_NAME}</span>
    </span>
  )
}
