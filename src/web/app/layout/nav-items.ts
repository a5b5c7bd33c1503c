import type { ComponentType, SVGProps } from 'react'
import Activity from 'lucide-react/icons/activity'
import AppWindow from 'lucide-react/icons/app-window'
import Code from 'lucide-react/icons/code'
import LayoutDashboard from 'lucide-react/icons/layout-dashboard'
import LogIn from 'lucide-react/icons/log-in'
import MessageSquare from 'lucide-react/icons/message-square'
import ScrollText from 'lucide-react/icons/scroll-text'
import Settings from 'lucide-react/icons/settings'
import Shield from 'lucide-react/icons/shield'
import User from 'lucide-react/icons/user'
import Users from 'lucide-react/icons/users'
import Webhook from 'lucide-react/icons/webhook'
import type { Role } from '~shared/constants'
import { type GuardedPage, PAGE_ACCESS, roleMayAccess } from '~shared/permissions'
import { paths } from '~web/config/paths'
import type { TranslationKey } from '~web/lib/i18n'

/** The side menu; who sees an item comes from the shared permission table. */
export interface NavItem {
  to: GuardedPage
  label: TranslationKey
  icon: ComponentType<SVGProps<SVGSVGElement>>
}

export interface NavSection {
  title: TranslationKey
  items: NavItem[]
}

export const NAV_SECTIONS: NavSection[] = [
  {
    title: 'nav.main',
    items: [
      { to: paths.dashboard, label: 'nav.dashboard', icon: LayoutDashboard },
      { to: paths.profile, label: 'nav.profile', icon: User },
      { to: paths.myActivity, label: 'nav.myActivity', icon: Activity },
      { to: paths.settings, label: 'nav.settings', icon: Settings },
    ],
  },
  {
    title: 'nav.administration',
    items: [
      { to: paths.admin, label: 'nav.adminDashboard', icon: Shield },
      { to: paths.adminUsers, label: 'nav.userManagement', icon: Users },
      { to: paths.activityLogs, label: 'nav.activityLogs', icon: ScrollText },
      { to: paths.adminApplications, label: 'nav.applications', icon: AppWindow },
      { to: paths.adminSignInMethods, label: 'nav.signInMethods', icon: LogIn },
      { to: paths.adminWebhooks, label: 'nav.webhooks', icon: Webhook },
    ],
  },
  { title: 'nav.developer', items: [{ to: paths.developer, label: 'nav.developerDashboard', icon: Code }] },
  { title: 'nav.moderator', items: [{ to: paths.moderator, label: 'nav.moderatorDashboard', icon: MessageSquare }] },
]

/** The sections and items this role may open; empty sections are left out. */
export function navFor(role: Role): NavSection[] {
  return NAV_SECTIONS.map((section) => ({
    ...section,
    items: section.items.filter((item) => roleMayAccess(PAGE_ACCESS[item.to], role)),
  })).filter((section) => section.items.length > 0)
}
