import type { ReactNode } from 'react'
import type { Role, Status } from '~shared/constants'
import { cn } from '~web/lib/cn'
import { useI18n } from '~web/lib/i18n'

export type BadgeTone = 'gray' | 'red' | 'blue' | 'purple' | 'green' | 'amber'

const TONES: Record<BadgeTone, string> = {
  gray: 'bg-slate-100 text-slate-800 dark:bg-slate-800 dark:text-slate-100',
  red: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200',
  blue: 'bg-blue-100 text-blue-800 dark:bg-blue-950 dark:text-blue-200',
  purple: 'bg-purple-100 text-purple-800 dark:bg-purple-950 dark:text-purple-200',
  green: 'bg-green-100 text-green-800 dark:bg-green-950 dark:text-green-200',
  amber: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200',
}

export function Badge({ tone = 'gray', children, className }: { tone?: BadgeTone; children: ReactNode; className?: string }) {
  return <span className={cn('inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-medium whitespace-nowrap', TONES[tone], className)}>{children}</span>
}

const ROLE_TONES: Record<Role, BadgeTone> = { ADMIN: 'red', DEVELOPER: 'blue', MODERATOR: 'purple', CLIENT: 'gray' }
const STATUS_TONES: Record<Status, BadgeTone> = { ACTIVE: 'green', INACTIVE: 'gray', SUSPENDED: 'red' }

export function RoleBadge({ role, className }: { role: Role; className?: string }) {
  const { t } = useI18n()
  return (
    <Badge tone={ROLE_TONES[role] ?? 'gray'} className={className}>
      {t(`roles.${role}`)}
    </Badge>
  )
}

export function StatusBadge({ status }: { status: Status }) {
  const { t } = useI18n()
  return <Badge tone={STATUS_TONES[status] ?? 'gray'}>{t(`statuses.${status}`)}</Badge>
}
