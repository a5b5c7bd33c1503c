import type { InputHTMLAttributes, Ref, SelectHTMLAttributes } from 'react'
import { cn } from '~web/lib/cn'

export const controlClass = cn(
  'block h-10 w-full min-w-0 rounded-md border border-line bg-card px-3 text-base text-fg sm:text-sm',
  'placeholder:text-muted disabled:cursor-not-allowed disabled:bg-subtle disabled:opacity-80',
  'aria-invalid:border-danger read-only:bg-subtle',
)

export function Input({ className, ref, ...props }: InputHTMLAttributes<HTMLInputElement> & { ref?: Ref<HTMLInputElement> }) {
  return <input ref={ref} className={cn(controlClass, className)} {...props} />
}

/** A native select: accessible and familiar on every device, including phones. */
export function Select({ className, ref, ...props }: SelectHTMLAttributes<HTMLSelectElement> & { ref?: Ref<HTMLSelectElement> }) {
  return <select ref={ref} className={cn(controlClass, 'pr-8', className)} {...props} />
}
