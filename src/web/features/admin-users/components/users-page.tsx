import { useRef, useState } from 'react'
import UserPlus from 'lucide-react/icons/user-plus'
import { ROLES, STATUSES } from '~shared/constants'
import { SORT_ORDERS, type SortOrder, USER_SORTS, type UserSort } from '~shared/schemas/lists'
import type { User } from '~shared/schemas/user'
import { ExportButton } from '~web/components/export/export-button'
import { Button } from '~web/components/ui/button'
import { Card, CardContent } from '~web/components/ui/card'
import { SearchField, SelectField } from '~web/components/ui/filter-fields'
import { PageHeader } from '~web/components/ui/page-header'
import { Pagination } from '~web/components/ui/pagination'
import { PageSpinner } from '~web/components/ui/spinner'
import { EmptyState, ErrorState } from '~web/components/ui/states'
import { useI18n } from '~web/lib/i18n'
import { useSession } from '~web/lib/session'
import { useListFilters } from '~web/lib/use-list-filters'
import { exportUsers, INACTIVE_DAYS, type UsersFilters, useUsers } from '../api/get-users'
import { ROLE_OPTIONS } from '../user-rules'
import { DeleteUserDialog } from './delete-user-dialog'
import { EditUserDialog } from './edit-user-dialog'
import { InviteUserDialog } from './invite-user-dialog'
import { type PendingSecurityAction, UserSecurityDialog } from './user-security-dialog'
import { type OnSecurityAction, UsersTable } from './users-table'

const YES_NO = ['all', 'true', 'false'] as const

export function UsersPage() {
  const { t } = useI18n()
  const actor = useSession().user
  const list = useListFilters<Omit<UsersFilters, 'search'>>(
    { role: 'all', status: 'all', verified: 'all', mfa: 'all', inactive: 'all', sort: 'createdAt', order: 'desc' },
    {
      role: ['all', ...ROLES],
      status: ['all', ...STATUSES],
      verified: YES_NO,
      mfa: YES_NO,
      inactive: ['all', ...INACTIVE_DAYS],
      sort: USER_SORTS,
      order: SORT_ORDERS,
    },
  )
  const filters: UsersFilters = { search: list.debouncedSearch, ...list.filters }
  const query = useUsers({ page: list.page, ...filters })
  const sortBy = (sort: UserSort, order: SortOrder) => list.setFilters({ sort, order })
  const [editing, setEditing] = useState<User | null>(null)
  const [deleting, setDeleting] = useState<User | null>(null)
  const [inviting, setInviting] = useState(false)
  const [securing, setSecuring] = useState<PendingSecurityAction | null>(null)
  const area = useRef<HTMLDivElement>(null)
  // Whose actions button takes focus back when a dialog closes: the row's own, or, when it was
  // deleted, the row that took its place, the one before it, else the table or the search box.
  const returnTo = useRef<string[]>([])
  const total = query.data?.pagination.total
  const users = query.data?.users ?? []
  if (!actor) return null

  const edit = (user: User) => {
    returnTo.current = [user.id]
    setEditing(user)
  }
  const remove = (user: User) => {
    const index = users.findIndex((candidate) => candidate.id === user.id)
    returnTo.current = [user.id, users[index + 1]?.id, users[index - 1]?.id].filter((id) => id !== undefined)
    setDeleting(user)
  }
  // From the row menu or from the edit dialog (which closes first): a confirmation, then the action.
  const secure: OnSecurityAction = (user, action) => {
    returnTo.current = [user.id]
    setEditing(null)
    setSecuring({ user, action })
  }
  const returnFocus = () => {
    const root = area.current
    if (!root) return null
    const buttons = [...root.querySelectorAll<HTMLElement>('[data-user-actions]')]
    const rowButton = returnTo.current.map((id) => buttons.find((button) => button.dataset.userActions === id)).find((button) => button !== undefined)
    return rowButton ?? root.querySelector<HTMLElement>('[data-users-table]') ?? root.querySelector<HTMLElement>('input[type="search"]')
  }

  return (
    <div ref={area}>
      <PageHeader
        title={total === undefined ? t('users.title') : t('users.titleWithCount', { count: total })}
        description={t('users.description')}
        actions={
          <Button onClick={() => setInviting(true)}>
            <UserPlus aria-hidden className="size-4" />
            {t('inviteDialog.invite')}
          </Button>
        }
      />
      <Card>
        <CardContent className="space-y-4 pt-4 sm:pt-6">
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-[1fr_auto_auto]">
            <SearchField label={t('users.searchLabel')} placeholder={t('users.searchPlaceholder')} value={list.search} onChange={list.setSearch} />
            <SelectField
              label={t('users.roleFilter')}
              value={list.filters.role}
              onChange={(value) => list.setFilter('role', value)}
              options={[{ value: 'all' as const, label: t('users.allRoles') }, ...ROLE_OPTIONS.map((role) => ({ value: role, label: t(`roles.${role}`) }))]}
              className="lg:w-44"
            />
            <SelectField
              label={t('users.statusFilter')}
              value={list.filters.status}
              onChange={(value) => list.setFilter('status', value)}
              options={[{ value: 'all' as const, label: t('users.allStatuses') }, ...STATUSES.map((status) => ({ value: status, label: t(`statuses.${status}`) }))]}
              className="lg:w-44"
            />
          </div>
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-[auto_auto_auto_1fr] lg:items-end">
            <SelectField
              label={t('adminLists.verifiedFilter')}
              value={list.filters.verified}
              onChange={(value) => list.setFilter('verified', value)}
              options={[
                { value: 'all' as const, label: t('adminLists.any') },
                { value: 'true' as const, label: t('adminLists.verified') },
                { value: 'false' as const, label: t('adminLists.unverified') },
              ]}
              className="lg:w-44"
            />
            <SelectField
              label={t('adminLists.mfaFilter')}
              value={list.filters.mfa}
              onChange={(value) => list.setFilter('mfa', value)}
              options={[
                { value: 'all' as const, label: t('adminLists.any') },
                { value: 'true' as const, label: t('adminLists.mfaOn') },
                { value: 'false' as const, label: t('adminLists.mfaOff') },
              ]}
              className="lg:w-44"
            />
            <SelectField
              label={t('adminLists.inactiveFilter')}
              value={list.filters.inactive}
              onChange={(value) => list.setFilter('inactive', value)}
              options={[
                { value: 'all' as const, label: t('adminLists.any') },
                ...INACTIVE_DAYS.map((days) => ({ value: days, label: t('adminLists.inactiveFor', { count: days }) })),
              ]}
              className="lg:w-52"
            />
            {/* Below xl some sort headers are hidden (all of them below md): the sort is chosen here instead. */}
            <SelectField
              label={t('adminLists.sortBy')}
              value={`${list.filters.sort}:${list.filters.order}`}
              onChange={(value) => {
                const [sort, order] = value.split(':') as [UserSort, SortOrder]
                sortBy(sort, order)
              }}
              options={USER_SORTS.flatMap((sort) =>
                SORT_ORDERS.map((order) => ({
                  value: `${sort}:${order}`,
                  label: t('adminLists.sortOption', { column: t(`adminLists.sorts.${sort}`), order: t(`adminLists.orders.${order}`) }),
                })),
              )}
              className="xl:hidden"
            />
            <div className="flex sm:col-span-2 md:col-span-1 lg:justify-end">
              <ExportButton load={() => exportUsers(filters)} />
            </div>
          </div>
          {query.isPending ? (
            <PageSpinner />
          ) : query.isError && !query.data ? (
            <ErrorState message={t('users.loadError')} onRetry={() => void query.refetch()} />
          ) : users.length === 0 ? (
            <EmptyState title={t('users.empty')} />
          ) : (
            <>
              <UsersTable
                users={users}
                actor={actor}
                onEdit={edit}
                onDelete={remove}
                onSecurityAction={secure}
                sort={list.filters.sort}
                order={list.filters.order}
                onSort={sortBy}
              />
              <Pagination page={list.page} pages={query.data?.pagination.pages ?? 1} onChange={list.setPage} hideSingle />
            </>
          )}
        </CardContent>
      </Card>
      <EditUserDialog user={editing} actor={actor} onClose={() => setEditing(null)} returnFocus={returnFocus} onSecurityAction={secure} />
      <InviteUserDialog open={inviting} onClose={() => setInviting(false)} />
      <UserSecurityDialog pending={securing} onClose={() => setSecuring(null)} returnFocus={returnFocus} />
      <DeleteUserDialog user={deleting} onClose={() => setDeleting(null)} returnFocus={returnFocus} />
    </div>
  )
}
