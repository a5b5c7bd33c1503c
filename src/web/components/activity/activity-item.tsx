import type { ActivityEntry } from '~shared/schemas/lists'
import { Avatar } from '~web/components/ui/avatar'
import { Badge, RoleBadge } from '~web/components/ui/badge'
import { useI18n } from '~web/lib/i18n'
import { formatDate, formatTime, relativeTime } from '~web/lib/time'
import { activityBadge, activityText, badgeText, detailsText } from './activity-text'
import { ActorLine, ChangeList } from './audit-parts'

const BADGE_TONES: Record<string, 'green' | 'blue' | 'amber' | 'red' | 'purple' | 'gray'> = {
  logged: 'green',
  registered: 'blue',
  updated: 'amber',
  changed: 'amber',
  deleted: 'red',
  failed: 'red',
  verified: 'purple',
  reset: 'purple',
  invited: 'blue',
  resent: 'blue',
  accepted: 'purple',
  sent: 'purple',
  enabled: 'green',
  disabled: 'red',
  regenerated: 'purple',
  added: 'blue',
  renamed: 'amber',
  removed: 'red',
  created: 'blue',
  replaced: 'purple',
  allowed: 'green',
  imported: 'blue',
  upgraded: 'purple',
}

/**
 * One activity entry, in the interface language where the server's text is a known one (see
 * `activity-text.ts`); the badge's colour follows the English word as sent. With `showUser` (the staff view) it also says whose entry it is: name
 * (or "Unknown User" once deleted), role (CLIENT by default) and e-mail.
 */
export function ActivityItem({ entry, showUser = false, now }: { entry: ActivityEntry; showUser?: boolean; now?: Date }) {
  const i18n = useI18n()
  const { t } = i18n
  const badge = activityBadge(entry.activity)
  const user = entry.user ?? null
  return (
    <li className="flex gap-3 border-b border-line py-4 last:border-b-0">
      {showUser ? <Avatar name={user?.name ?? '?'} src={user?.profilePicture ?? null} /> : null}
      <div className="min-w-0 flex-1 space-y-1.5">
        <div className="flex flex-wrap items-center gap-2">
          <p className="min-w-0 font-medium break-words">{activityText(entry.activity, i18n)}</p>
          {badge ? <Badge tone={BADGE_TONES[badge.toLowerCase()] ?? 'gray'}>{badgeText(badge, i18n)}</Badge> : null}
        </div>
        {showUser ? (
          <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
            <span className="min-w-0 font-medium break-words">{user?.name ?? t('activity.unknownUser')}</span>
            <RoleBadge role={user?.role ?? 'CLIENT'} />
            {user?.email ? <span className="min-w-0 wrap-anywhere text-muted">{user.email}</span> : null}
          </div>
        ) : null}
        {entry.actor ? <ActorLine actor={entry.actor} /> : null}
        {entry.changes ? (
          <ChangeList changes={entry.changes} />
        ) : entry.details ? (
          <p className="text-sm break-words text-muted">{detailsText(entry.details, i18n)}</p>
        ) : null}
        <p className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-muted">
          {entry.ipAddress ? (
            <span className="wrap-anywhere">
              {t('activity.ip')}: {entry.ipAddress}
            </span>
          ) : null}
          <span>{formatDate(entry.createdAt)}</span>
          <span>{formatTime(entry.createdAt)}</span>
          <time dateTime={entry.createdAt}>{relativeTime(entry.createdAt, now)}</time>
        </p>
      </div>
    </li>
  )
}
