import type { ReactNode } from 'react'
import ArrowDown from 'lucide-react/icons/arrow-down'
import ArrowUp from 'lucide-react/icons/arrow-up'
import ArrowUpDown from 'lucide-react/icons/arrow-up-down'
import EllipsisVertical from 'lucide-react/icons/ellipsis-vertical'
import Pencil from 'lucide-react/icons/pencil'
import Trash2 from 'lucide-react/icons/trash-2'
import KeyRound from 'lucide-react/icons/key-round'
import LogOut from 'lucide-react/icons/log-out'
import MailPlus from 'lucide-react/icons/mail-plus'
import ShieldOff from 'lucide-react/icons/shield-off'
import type { AdminUser, SortOrder, UserSort } from '~shared/schemas/lists'
import type { User } from '~shared/schemas/user'
import { Avatar } from '~web/components/ui/avatar'
import { Badge, RoleBadge, StatusBadge } from '~web/components/ui/badge'
import { buttonClass } from '~web/components/ui/button'
import { Menu, MenuContent, MenuItem, MenuTrigger } from '~web/components/ui/dropdown-menu'
import { cn } from '~web/lib/cn'
import { useI18n } from '~web/lib/i18n'
import { formatDate, formatDateTime, relativeTime } from '~web/lib/time'
import { type UserSecurityAction, securityActionsFor } from '../security-actions'
import { deleteBlockedReason, editBlockedReason } from '../user-rules'

/** The admin's actions on a user's security, each opening its confirmation (`security-actions.ts`). */
export type OnSecurityAction = (user: User, action: UserSecurityAction) => void

const SECURITY_ICONS: Record<UserSecurityAction, typeof KeyRound> = {
  'resend-invitation': MailPlus,
  'password-reset': KeyRound,
  'sign-out': LogOut,
  'reset-mfa': ShieldOff,
}

/**
 * The users table. On small screens each row becomes a card whose cells carry their column name,
 * so nothing scrolls sideways at 360 px. Each row's actions button carries `data-user-actions`
 * (the user's id) so focus can be given back to it when a dialog it opened closes; the table
 * itself can take focus when no row is left to take it.
 */
export function UsersTable({
  users,
  actor,
  onEdit,
  onDelete,
  onSecurityAction,
  sort,
  order,
  onSort,
}: {
  users: AdminUser[]
  actor: User
  onEdit: (user: User) => void
  onDelete: (user: User) => void
  sort: UserSort
  order: SortOrder
  onSort: (sort: UserSort, order: SortOrder) => void
  onSecurityAction: OnSecurityAction
}) {
  const { t } = useI18n()
  const sorting = { sort, order, onSort }
  return (
    // From md up it is a real table; should it ever be wider than the card (a very long word in a
    // name), it scrolls inside the card rather than the page scrolling sideways.
    <div className="md:overflow-x-auto">
      <table tabIndex={-1} data-users-table className="w-full text-left text-sm outline-none">
        {/* The hint of the WAI-ARIA sortable table, outside every header's and button's name. */}
        <caption className="sr-only">{t('adminLists.sortableTable')}</caption>
        <thead className="hidden border-b border-line text-muted md:table-header-group">
          <tr>
            {/* Sorted by name; by e-mail address from the page's Sort by choice (one button per header). */}
            <th scope="col" aria-sort={ariaSort(sorting, 'name', 'email')} className="px-2 py-2 font-medium xl:px-3">
              <SortButton column="name" label={t('users.columns.user')} {...sorting} marked={sorting.sort === 'email'} />
            </th>
            <th scope="col" aria-sort={ariaSort(sorting, 'role')} className="px-2 py-2 font-medium xl:px-3">
              <SortButton column="role" label={t('users.columns.role')} {...sorting} />
            </th>
            <th scope="col" aria-sort={ariaSort(sorting, 'status')} className="px-2 py-2 font-medium xl:px-3">
              <SortButton column="status" label={t('users.columns.status')} {...sorting} />
            </th>
            <th scope="col" className="px-2 py-2 font-medium xl:px-3">
              {t('users.columns.emailVerified')}
            </th>
            <th scope="col" aria-sort={ariaSort(sorting, 'createdAt')} className="px-2 py-2 font-medium xl:px-3">
              <SortButton column="createdAt" label={t('users.columns.created')} {...sorting} />
            </th>
            {/* Between md and xl seven columns leave the name and address too little room: the last
                sign-in shows on phones (as a card row) and from xl up; the page's sort choice
                offers its order in between. */}
            <th scope="col" aria-sort={ariaSort(sorting, 'lastSignInAt')} className="hidden px-2 py-2 font-medium xl:table-cell xl:px-3">
              <SortButton column="lastSignInAt" label={t('adminLists.lastSignIn')} {...sorting} />
            </th>
            <th scope="col" className="px-2 py-2 text-right font-medium xl:px-3">
              {t('users.columns.actions')}
            </th>
          </tr>
        </thead>
        <tbody className="block md:table-row-group">
          {users.map((user) => (
            <tr key={user.id} className="relative block border-b border-line py-3 last:border-0 md:table-row md:py-0">
              <td className="block pr-12 md:table-cell md:min-w-44 md:px-2 md:py-3 xl:px-3">
                <div className="flex min-w-0 items-center gap-3">
                  {/* Not between md and xl, where six columns share a narrow card: the name and address need the room. */}
                  <span className="contents md:hidden xl:contents">
                    <Avatar name={user.name} src={user.profilePicture} size="sm" />
                  </span>
                  <div className="min-w-0">
                    <p className="font-medium break-words">{user.name}</p>
                    <p className="wrap-anywhere text-muted">{user.email}</p>
                  </div>
                </div>
              </td>
              <Cell label={t('users.columns.role')}>
                <RoleBadge role={user.role} />
              </Cell>
              <Cell label={t('users.columns.status')}>
                <StatusBadge status={user.status} />
              </Cell>
              <Cell label={t('users.columns.emailVerified')}>
                {user.emailVerified ? <Badge tone="green">{t('common.verified')}</Badge> : <Badge tone="amber">{t('common.pending')}</Badge>}
              </Cell>
              <Cell label={t('users.columns.created')}>
                <span className="whitespace-nowrap">{formatDate(user.createdAt)}</span>
              </Cell>
              <Cell label={t('adminLists.lastSignIn')} wideOnly>
                {user.lastSignInAt ? (
                  <time dateTime={user.lastSignInAt} title={formatDateTime(user.lastSignInAt)} className="whitespace-nowrap" data-last-sign-in>
                    {relativeTime(user.lastSignInAt)}
                  </time>
                ) : (
                  <span className="text-muted" data-last-sign-in>
                    {t('adminLists.never')}
                  </span>
                )}
              </Cell>
              <td className="absolute top-3 right-0 md:static md:px-2 md:py-3 md:text-right xl:px-3">
                <RowActions user={user} actor={actor} onEdit={onEdit} onDelete={onDelete} onSecurityAction={onSecurityAction} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

interface Sorting {
  sort: UserSort
  order: SortOrder
  onSort: (sort: UserSort, order: SortOrder) => void
}

/** The header's aria-sort: set on the sorted column only, as the ARIA practices advise. */
function ariaSort({ sort, order }: Sorting, ...columns: UserSort[]): 'ascending' | 'descending' | undefined {
  if (!columns.includes(sort)) return undefined
  return order === 'asc' ? 'ascending' : 'descending'
}

/**
 * A column header's sort button (the WAI-ARIA sortable table): its name is the column's, so the
 * header keeps the column's name and every cell is read with it; the order is the header's
 * aria-sort, the arrow only shows it. The first press sorts ascending (dates newest first), the
 * next reverses. `marked`: the column is sorted by another of its keys (the user by e-mail).
 */
function SortButton({ column, label, sort, order, onSort, marked = false }: Sorting & { column: UserSort; label: string; marked?: boolean }) {
  const active = sort === column
  const firstOrder: SortOrder = column === 'createdAt' || column === 'lastSignInAt' ? 'desc' : 'asc'
  const next: SortOrder = active ? (order === 'asc' ? 'desc' : 'asc') : firstOrder
  const shown = active || marked
  const Icon = shown ? (order === 'asc' ? ArrowUp : ArrowDown) : ArrowUpDown
  return (
    <button type="button" onClick={() => onSort(column, next)} className="-mx-1 inline-flex items-center gap-1 rounded px-1 py-0.5 font-medium hover:text-fg">
      {label}
      <Icon aria-hidden className={shown ? 'size-3.5 shrink-0 text-fg' : 'hidden size-3.5 shrink-0 opacity-60 xl:inline'} />
    </button>
  )
}

function Cell({ label, children, wideOnly = false }: { label: string; children: ReactNode; wideOnly?: boolean }) {
  return (
    <td className={cn('flex items-center justify-between gap-3 py-1 md:px-2 md:py-3 xl:px-3', wideOnly ? 'md:hidden xl:table-cell' : 'md:table-cell')}>
      <span className="text-muted md:hidden">{label}</span>
      <span>{children}</span>
    </td>
  )
}

/** Edit, the security actions and Delete; an unavailable action stays reachable and says why. */
function RowActions({
  user,
  actor,
  onEdit,
  onDelete,
  onSecurityAction,
}: {
  user: User
  actor: User
  onEdit: (user: User) => void
  onDelete: (user: User) => void
  onSecurityAction: OnSecurityAction
}) {
  const { t, tm } = useI18n()
  const editReason = editBlockedReason(actor, user)
  const deleteReason = deleteBlockedReason(actor, user)
  return (
    <Menu>
      <MenuTrigger className={buttonClass('ghost', 'icon')} aria-label={t('users.actionsFor', { name: user.name })} data-user-actions={user.id}>
        <EllipsisVertical aria-hidden className="size-4" />
      </MenuTrigger>
      <MenuContent>
        <MenuItem id={`edit-${user.id}`} reason={editReason ? tm(editReason) : null} onSelect={() => onEdit(user)}>
          <Pencil aria-hidden className="size-4" />
          {t('users.edit')}
        </MenuItem>
        {securityActionsFor(actor, user).map(({ action, reason }) => {
          const Icon = SECURITY_ICONS[action]
          return (
            <MenuItem key={action} id={`${action}-${user.id}`} reason={reason ? tm(reason) : null} onSelect={() => onSecurityAction(user, action)}>
              <Icon aria-hidden className="size-4" />
              {t(`userActions.${action}.menu`)}
            </MenuItem>
          )
        })}
        <MenuItem id={`delete-${user.id}`} danger reason={deleteReason ? tm(deleteReason) : null} onSelect={() => onDelete(user)}>
          <Trash2 aria-hidden className="size-4" />
          {t('users.delete')}
        </MenuItem>
      </MenuContent>
    </Menu>
  )
}
