import type { HTMLAttributes, ReactNode } from 'react'
import { cn } from '~web/lib/cn'

export function Card({ className, ...props }: HTMLAttributes<HTMLElement>) {
  return <section className={cn('rounded-lg border border-line bg-card text-fg shadow-sm', className)} {...props} />
}

export function CardHeader({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn('space-y-1 p-4 sm:p-6', className)} {...props} />
}

export function CardTitle({ className, as: Heading = 'h2', ...props }: HTMLAttributes<HTMLHeadingElement> & { as?: 'h1' | 'h2' | 'h3' }) {
  return <Heading className={cn('text-lg leading-tight font-semibold', className)} {...props} />
}

export function CardDescription({ className, ...props }: HTMLAttributes<HTMLParagraphElement>) {
  return <p className={cn('text-sm text-muted', className)} {...props} />
}

export function CardContent({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn('px-4 pb-4 sm:px-6 sm:pb-6', className)} {...props} />
}

export function CardFooter({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn('flex flex-wrap items-center gap-3 px-4 pb-4 sm:px-6 sm:pb-6', className)} {...props} />
}

/** The bare, centred frame of the signed-out pages. */
const WIDTHS = { md: 'max-w-md', lg: 'max-w-lg', xl: 'max-w-4xl' } as const

export function PublicPage({ children, width = 'md', header }: { children: ReactNode; width?: keyof typeof WIDTHS; header?: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      {header ? <header className="flex flex-wrap items-center justify-between gap-3 px-4 pt-4 sm:px-6">{header}</header> : null}
      <main id="main" className="flex flex-1 items-start justify-center px-4 py-10 sm:items-center">
        <div className={cn('w-full', WIDTHS[width])}>{children}</div>
      </main>
    </div>
  )
}
