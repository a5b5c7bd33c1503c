import { useNavigate } from 'react-router'
import Bug from 'lucide-react/icons/bug'
import LogOut from 'lucide-react/icons/log-out'
import Settings from 'lucide-react/icons/settings'
import UserIcon from 'lucide-react/icons/user'
import type { User } from '~shared/schemas/user'
import { Avatar, initialsOf } from '~web/components/ui/avatar'
import { Menu, MenuContent, MenuLabel, MenuLinkItem, MenuSeparator, MenuTrigger } from '~web/components/ui/dropdown-menu'
import { paths } from '~web/config/paths'
import { useI18n } from '~web/lib/i18n'
import { session } from '~web/lib/session'
import { notify } from '~web/lib/toast'

/** The avatar's dropdown: who is signed in, Profile, Settings, Debug and Log out. */
export function UserMenu({ user }: { user: User }) {
  const { t } = useI18n()
  const navigate = useNavigate()
  const logOut = async () => {
    await session.signOut()
    notify.success(t('nav.loggedOut'))
    await navigate(paths.login, { replace: true })
  }
  // Without a picture the button shows the initials: they are its visible label, so they are
  // part of its name too (WCAG 2.5.3, label in name), for people who operate it by voice. Not in
  // parentheses: checkers (axe) read a parenthetical as an aside, not as part of the name.
  const label = t('nav.accountMenu', { name: user.name })
  return (
    <Menu>
      <MenuTrigger className="rounded-full" aria-label={user.profilePicture ? label : `${label}, ${initialsOf(user.name)}`}>
        <Avatar name={user.name} src={user.profilePicture} size="sm" />
      </MenuTrigger>
      <MenuContent>
        <MenuLabel>
          <p className="truncate text-sm font-semibold">{user.name}</p>
          <p className="truncate text-xs text-muted">{user.email}</p>
        </MenuLabel>
        <MenuSeparator />
        <MenuLinkItem onSelect={() => void navigate(paths.profile)}>
          <UserIcon aria-hidden className="size-4" />
          {t('nav.profile')}
        </MenuLinkItem>
        <MenuLinkItem onSelect={() => void navigate(paths.settings)}>
          <Settings aria-hidden className="size-4" />
          {t('nav.settings')}
        </MenuLinkItem>
        <MenuLinkItem onSelect={() => void navigate(paths.debug)}>
          <Bug aria-hidden className="size-4" />
          {t('nav.debug')}
        </MenuLinkItem>
        <MenuSeparator />
        <MenuLinkItem onSelect={() => void logOut()}>
          <LogOut aria-hidden className="size-4" />
          {t('nav.logout')}
        </MenuLinkItem>
      </MenuContent>
    </Menu>
  )
}
