import type { ReactNode } from 'react'
import { PAGE_ACCESS, roleMayAccess } from '~shared/permissions'
import { Badge } from '~web/components/ui/badge'
import { Button } from '~web/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '~web/components/ui/card'
import { PageHeader } from '~web/components/ui/page-header'
import { paths } from '~web/config/paths'
import { authStorage, browserStore } from '~web/lib/auth-storage'
import { useI18n } from '~web/lib/i18n'
import { useSession } from '~web/lib/session'
import { notify } from '~web/lib/toast'

/**
 * The auth debug page: what the browser holds about the session, never a token's value. Only an
 * ADMIN counts as allowed on the admin area.
 */
export function DebugPage() {
  const { t } = useI18n()
  const current = useSession()
  const user = current.user
  const yesNo = (value: boolean) => (value ? t('common.yes') : t('common.no'))
  const allowed = (value: boolean) => <Badge tone={value ? 'green' : 'red'}>{value ? t('debug.allowed') : t('debug.denied')}</Badge>
  const dashboardAllowed = current.authenticated && roleMayAccess(PAGE_ACCESS[paths.dashboard], user?.role)
  const adminAllowed = current.authenticated && user?.role === 'ADMIN'

  const state = {
    loading: current.status === 'loading',
    authenticated: current.authenticated,
    hasAccessToken: !!authStorage.accessToken(),
    hasRefreshToken: !!authStorage.refreshToken(),
    user: user ? { id: user.id, email: user.email, name: user.name, role: user.role, status: user.status, emailVerified: user.emailVerified } : null,
    access: { dashboard: dashboardAllowed, admin: adminAllowed },
  }

  const logState = () => {
    console.info('[auth debug]', state)
    notify.success(t('debug.logged'))
  }
  const clearStorage = () => {
    try {
      window.localStorage.clear()
    } catch {
      ;['accessToken', 'refreshToken', 'user'].forEach((key) => browserStore.removeItem(key))
    }
    window.location.reload()
  }

  return (
    <div className="space-y-6">
      <PageHeader title={t('debug.title')} description={t('debug.description')} />
      <div className="grid grid-cols-1 gap-6 xl:grid-cols-2">
        <Card>
          <CardHeader>
            <CardTitle>{t('debug.state')}</CardTitle>
          </CardHeader>
          <CardContent>
            <dl className="grid grid-cols-1 gap-x-4 text-sm sm:grid-cols-[minmax(0,auto)_minmax(0,1fr)] sm:gap-y-2">
              <Row label={t('debug.loading')}>{yesNo(state.loading)}</Row>
              <Row label={t('debug.authenticated')}>{yesNo(state.authenticated)}</Row>
              <Row label={t('debug.accessToken')}>{yesNo(state.hasAccessToken)}</Row>
              <Row label={t('debug.refreshToken')}>{yesNo(state.hasRefreshToken)}</Row>
              <Row label={t('debug.id')}>{user?.id ?? t('debug.none')}</Row>
              <Row label={t('debug.email')}>{user?.email ?? t('debug.none')}</Row>
              <Row label={t('debug.name')}>{user?.name ?? t('debug.none')}</Row>
              <Row label={t('debug.role')}>{user?.role ?? t('debug.none')}</Row>
              <Row label={t('debug.status')}>{user?.status ?? t('debug.none')}</Row>
              <Row label={t('debug.emailVerified')}>{user ? yesNo(user.emailVerified) : t('debug.none')}</Row>
            </dl>
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>{t('debug.access')}</CardTitle>
          </CardHeader>
          <CardContent className="space-y-6">
            <dl className="grid grid-cols-1 gap-x-4 text-sm sm:grid-cols-[minmax(0,auto)_minmax(0,1fr)] sm:gap-y-2">
              <Row label={t('debug.dashboardAccess')}>{allowed(dashboardAllowed)}</Row>
              <Row label={t('debug.adminAccess')}>{allowed(adminAllowed)}</Row>
            </dl>
            <div className="flex flex-wrap gap-2">
              <Button variant="outline" onClick={logState}>
                {t('debug.logState')}
              </Button>
              <Button variant="danger" onClick={clearStorage}>
                {t('debug.clearStorage')}
              </Button>
            </div>
          </CardContent>
        </Card>
      </div>
    </div>
  )
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="break-words text-muted">{label}</dt>
      <dd className="mb-2 min-w-0 font-medium wrap-anywhere sm:mb-0">{children}</dd>
    </>
  )
}
