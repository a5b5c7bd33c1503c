import { useState } from 'react'
import { cn } from '~web/lib/cn'

export function initialsOf(name: string | null | undefined): string {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean)
  const letters = words.length > 1 ? [words[0], words[words.length - 1]] : words.slice(0, 1)
  const initials = letters.map((word) => Array.from(word ?? '')[0]?.toUpperCase() ?? '').join('')
  return initials || '?'
}

const SIZES = { sm: 'size-8 text-xs', md: 'size-10 text-sm', lg: 'size-20 text-2xl' } as const

/** The profile picture, or the initials of the name when there is none (or it fails to load). */
export function Avatar({ name, src, size = 'md', alt = '' }: { name: string | null | undefined; src?: string | null; size?: keyof typeof SIZES; alt?: string }) {
  const [failed, setFailed] = useState<string | null>(null)
  const showImage = src && failed !== src
  return (
    <span
      className={cn(
        'inline-flex shrink-0 items-center justify-center overflow-hidden rounded-full bg-blue-100 font-semibold text-blue-900 dark:bg-blue-900 dark:text-blue-50',
        SIZES[size],
      )}
    >
      {showImage ? (
        <img src={src} alt={alt} className="size-full object-cover" onError={() => setFailed(src)} />
      ) : (
        <span aria-hidden={alt ? undefined : true} role={alt ? 'img' : undefined} aria-label={alt || undefined}>
          {initialsOf(name)}
        </span>
      )}
    </span>
  )
}
