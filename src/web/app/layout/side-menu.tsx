import { NavLink } from 'react-router'
import type { Role } from '~shared/constants'
import { cn } from '~web/lib/cn'
import { useI18n } from '~web/lib/i18n'
import { navFor } from './nav-items'

/** The side menu's sections and links, for the fixed column and for the small-screen sheet. */
export function SideMenu({ role, compact = false, onNavigate }: { role: Role; compact?: boolean; onNavigate?: () => void }) {
  const { t } = useI18n()
  return (
    <nav aria-label={t('nav.sideMenu')} className="space-y-5">
      {navFor(role).map((section) => (
        <div key={section.title}>
          <h2 className={cn('mb-1 px-3 text-xs font-semibold tracking-wide text-muted uppercase', compact && 'sr-only')}>{t(section.title)}</h2>
          <ul className="space-y-0.5">
            {section.items.map(({ to, label, icon: Icon }) => (
              <li key={to}>
                <NavLink
                  to={to}
                  end
                  onClick={onNavigate}
                  title={compact ? t(label) : undefined}
                  className={({ isActive }) =>
                    cn(
                      'flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium',
                      compact && 'justify-center px-2',
                      isActive ? 'bg-blue-100 text-blue-900 dark:bg-blue-950 dark:text-blue-100' : 'text-fg hover:bg-subtle',
                    )
                  }
                >
                  <Icon aria-hidden className="size-4 shrink-0" />
                  <span className={compact ? 'sr-only' : undefined}>{t(label)}</span>
                </NavLink>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  )
}
