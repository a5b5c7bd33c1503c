import type { ReactNode } from 'react'
import Check from 'lucide-react/icons/check'
import CircleCheck from 'lucide-react/icons/circle-check'
import Clock from 'lucide-react/icons/clock'
import type { Role } from '~shared/constants'
import type { User } from '~shared/schemas/user'
import { Avatar } from '~web/components/ui/avatar'
import { NameAndBadges } from '~web/components/name-and-badges'
import { Badge, RoleBadge, StatusBadge } from '~web/components/ui/badge'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~web/components/ui/card'
import { type TranslationKey, useI18n } from '~web/lib/i18n'
import { useSession } from '~web/lib/session'
import { formatDate } from '~web/lib/time'
import { completionHintKey, profileCompletion } from '../profile-completion'

const PERMISSIONS: Record<Role, TranslationKey[]> = {
  ADMIN: [
    'dashboard.permissions.dashboard',
    'dashboard.permissions.profile',
    'dashboard.permissions.activity',
    'dashboard.permissions.users',
    'dashboard.permissions.system',
  ],
  DEVELOPER: ['dashboard.permissions.dashboard', 'dashboard.permissions.profile', 'dashboard.permissions.activity', 'dashboard.permissions.projects'],
  MODERATOR: ['dashboard.permissions.dashboard', 'dashboard.permissions.profile', 'dashboard.permissions.activity', 'dashboard.permissions.comments'],
  CLIENT: ['dashboard.permissions.dashboard', 'dashboard.permissions.profile'],
}

export function DashboardPage() {
  const { t } = useI18n()
  const { user } = useSession()
  if (!user) return null
  return (
    <div className="space-y-6">
      <div className="space-y-1">
        <h1 className="text-2xl font-bold tracking-tight">{t('dashboard.welcome', { name: user.name })}</h1>
        <p className="text-sm text-muted">{t('dashboard.subtitle')}</p>
      </div>
      {/* Three columns only where each is wide enough for a long name or address beside the picture. */}
      <div className="grid grid-cols-1 gap-6 md:grid-cols-2 xl:grid-cols-3">
        <ProfileCard user={user} />
        <RoleCard role={user.role} />
        <StatusCard user={user} />
      </div>
    </div>
  )
}

function ProfileCard({ user }: { user: User }) {
  const { t } = useI18n()
  return (
    <Card className="md:col-span-2 xl:col-span-1">
      <CardHeader>
        <CardTitle>{t('dashboard.profileCard')}</CardTitle>
      </CardHeader>
      <CardContent className="space-y-4">
        <div className="flex flex-wrap items-center gap-4">
          <Avatar name={user.name} src={user.profilePicture} size="lg" />
          <NameAndBadges user={user} />
        </div>
        <dl className="space-y-2 text-sm">
          <Item label={t('dashboard.email')}>
            <span className="wrap-anywhere">{user.email}</span>{' '}
            {user.emailVerified ? (
              <span className="inline-flex items-center gap-1 text-green-700 dark:text-green-400">
                <CircleCheck aria-hidden className="size-4" />
                <span>{t('dashboard.emailVerified')}</span>
              </span>
            ) : (
              <span className="text-amber-800 dark:text-amber-300">{t('dashboard.emailPending')}</span>
            )}
          </Item>
          {user.phone ? <Item label={t('dashboard.phone')}>{user.phone}</Item> : null}
          <Item label={t('dashboard.joined')}>{formatDate(user.createdAt)}</Item>
          <Item label={t('dashboard.updated')}>{formatDate(user.updatedAt)}</Item>
        </dl>
      </CardContent>
    </Card>
  )
}

function RoleCard({ role }: { role: Role }) {
  const { t } = useI18n()
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('dashboard.roleCard')}</CardTitle>
        <CardDescription>{t('dashboard.roleCardDescription')}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        <RoleBadge role={role} />
        <p className="text-sm">{t(`dashboard.roleDescriptions.${role}`)}</p>
        <ul className="space-y-1.5 text-sm">
          {PERMISSIONS[role].map((key) => (
            <li key={key} className="flex items-start gap-2">
              <Check aria-hidden className="mt-0.5 size-4 shrink-0 text-green-700 dark:text-green-400" />
              {t(key)}
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  )
}

function StatusCard({ user }: { user: User }) {
  const { t } = useI18n()
  const completion = profileCompletion(user)
  const hint = completionHintKey(user)
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('dashboard.statusCard')}</CardTitle>
      </CardHeader>
      <CardContent className="space-y-4 text-sm">
        <dl className="space-y-3">
          <Item label={t('dashboard.status')}>
            <StatusBadge status={user.status} />
          </Item>
          <Item label={t('dashboard.emailVerification')}>
            {user.emailVerified ? (
              <Badge tone="green">{t('common.verified')}</Badge>
            ) : (
              <Badge tone="amber">
                <Clock aria-hidden className="mr-1 size-3" />
                {t('common.pending')}
              </Badge>
            )}
          </Item>
        </dl>
        <div className="space-y-1.5">
          <div className="flex justify-between gap-2">
            <span id="completion-label" className="text-muted">
              {t('dashboard.completion')}
            </span>
            <span className="font-medium">{completion}%</span>
          </div>
          <div
            role="progressbar"
            aria-labelledby="completion-label"
            aria-valuenow={completion}
            aria-valuemin={0}
            aria-valuemax={100}
            className="h-2 overflow-hidden rounded-full bg-subtle"
          >
            <div className="h-full rounded-full bg-primary" style={{ width: `${completion}%` }} />
          </div>
          {hint ? <p className="text-xs text-muted">{t(hint)}</p> : null}
        </div>
      </CardContent>
    </Card>
  )
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1">
      <dt className="text-muted">{label}</dt>
      <dd className="min-w-0">{children}</dd>
    </div>
  )
}
