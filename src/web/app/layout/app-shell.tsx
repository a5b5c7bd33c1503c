import { type ReactNode, useState } from 'react'
import { Link, useLocation } from 'react-router'
import MenuIcon from 'lucide-react/icons/menu'
import type { User } from '~shared/schemas/user'
import { RoleBadge } from '~web/components/ui/badge'
import { Button } from '~web/components/ui/button'
import { Dialog } from '~web/components/ui/dialog'
import { Brand } from '~web/components/brand'
import { APP_NAME } from '~web/config/app'
import { paths } from '~web/config/paths'
import { cn } from '~web/lib/cn'
import { useI18n } from '~web/lib/i18n'
import { useSettings } from '~web/lib/settings'
import { SideMenu } from './side-menu'
import { UserMenu } from './user-menu'

/**
 * The signed-in frame: top bar, side menu (a fixed column on wide
 * screens, a slide-in sheet on small ones) and the main area.
 */
export function AppShell({ user, children }: { user: User; children: ReactNode }) {
  const { t } = useI18n()
  const { compactSidebar } = useSettings()
  const [menuOpen, setMenuOpen] = useState(false)
  const location = useLocation()
  const [menuPath, setMenuPath] = useState(location.pathname)
  // Any navigation closes the sheet.
  if (menuPath !== location.pathname) {
    setMenuPath(location.pathname)
    setMenuOpen(false)
  }

  return (
    <div className="min-h-dvh">
      <a href="#main" className="sr-only z-50 rounded-md bg-card px-4 py-2 focus:not-sr-only focus:fixed focus:top-2 focus:left-2">
        {t('app.skipToContent')}
      </a>
      <header className="sticky top-0 z-30 flex h-14 items-center gap-2 border-b border-line bg-card px-2 sm:px-4">
        <Button variant="ghost" size="icon" className="lg:hidden" aria-label={t('nav.openMenu')} onClick={() => setMenuOpen(true)}>
          <MenuIcon aria-hidden className="size-5" />
        </Button>
        <Link to={paths.dashboard} className="min-w-0 rounded-md px-1" aria-label={t('nav.home', { name: APP_NAME })}>
          <Brand />
        </Link>
        <div className="ml-auto flex min-w-0 items-center gap-2 sm:gap-3">
          <RoleBadge role={user.role} />
          <UserMenu user={user} />
        </div>
      </header>

      <Dialog open={menuOpen} onOpenChange={setMenuOpen} side="left" title={t('nav.menu')} description={t('nav.quickNavigation')}>
        <SideMenu role={user.role} onNavigate={() => setMenuOpen(false)} />
      </Dialog>

      <div className="flex">
        <aside
          className={cn(
            'sticky top-14 hidden h-[calc(100dvh-3.5rem)] shrink-0 overflow-y-auto border-r border-line bg-card py-4 lg:block',
            compactSidebar ? 'w-16 px-1.5' : 'w-64 px-3',
          )}
        >
          <SideMenu role={user.role} compact={compactSidebar} />
        </aside>
        <main id="main" tabIndex={-1} className="min-w-0 flex-1 px-4 py-6 outline-none sm:px-6 lg:px-8">
          <div className="mx-auto max-w-6xl">{children}</div>
        </main>
      </div>
    </div>
  )
}
