import type { User } from '~shared/schemas/user'
import { RoleBadge, StatusBadge } from '~web/components/ui/badge'

/** A user's name over their role and status badges: beside the picture on the dashboard and the profile. */
export function NameAndBadges({ user }: { user: Pick<User, 'name' | 'role' | 'status'> }) {
  return (
    <div className="min-w-0 space-y-1">
      <p className="text-lg font-semibold break-words">{user.name}</p>
      <div className="flex flex-wrap gap-1.5">
        <RoleBadge role={user.role} />
        <StatusBadge status={user.status} />
      </div>
    </div>
  )
}
