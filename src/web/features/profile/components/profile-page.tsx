import { useSearchParams } from 'react-router'
import { PageHeader } from '~web/components/ui/page-header'
import { Tab, TabList, TabPanel, Tabs } from '~web/components/ui/tabs'
import { useI18n } from '~web/lib/i18n'
import { useSession } from '~web/lib/session'
import { TwoFactorSection } from '~web/features/security/components/two-factor-section'
import { SignedInDevices } from '~web/features/security/components/signed-in-devices'
import { PasskeysSection } from '~web/features/security/components/passkeys-section'
import { ConnectedAppsSection } from '~web/features/security/components/connected-apps-section'
import { LinkedMethodsSection } from '~web/features/security/components/linked-methods-section'
import { OwnDataSection } from '~web/features/security/components/own-data-section'
import { useProfile } from '../api/get-profile'
import { ChangePasswordForm } from './change-password-form'
import { ProfileForm } from './profile-form'

export function ProfilePage() {
  const { t } = useI18n()
  const sessionUser = useSession().user
  const { data: user } = useProfile(sessionUser)
  // `?tab=security`: where a sign-in through a provider started from the Security tab comes back to.
  const [search] = useSearchParams()
  if (!user) return null
  return (
    <div>
      <PageHeader title={t('profile.title')} description={t('profile.description')} />
      <Tabs defaultValue={search.get('tab') === 'security' ? 'security' : 'profile'}>
        <TabList label={t('profile.title')}>
          <Tab value="profile">{t('profile.profileTab')}</Tab>
          <Tab value="security">{t('profile.securityTab')}</Tab>
        </TabList>
        <TabPanel value="profile">
          <ProfileForm user={user} />
        </TabPanel>
        <TabPanel value="security">
          <div className="space-y-6">
            <ChangePasswordForm />
            <TwoFactorSection email={user.email} />
            <PasskeysSection />
            <LinkedMethodsSection />
            <SignedInDevices />
            <ConnectedAppsSection />
            <OwnDataSection isAdmin={user.role === 'ADMIN'} />
          </div>
        </TabPanel>
      </Tabs>
    </div>
  )
}
