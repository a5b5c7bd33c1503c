import { useState } from 'react'
import Info from 'lucide-react/icons/info'
import { LANGUAGES } from '~shared/constants'
import { Button } from '~web/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '~web/components/ui/card'
import { SelectField } from '~web/components/ui/filter-fields'
import { PageHeader } from '~web/components/ui/page-header'
import { SwitchField } from '~web/components/ui/switch'
import { useI18n } from '~web/lib/i18n'
import { applyPreferences } from '~web/lib/preferences'
import { DEFAULT_SETTINGS, type Settings, THEMES, settingsStore, useSettings } from '~web/lib/settings'
import { notify } from '~web/lib/toast'

/** Settings: appearance, notifications and language, kept in this browser only. */
export function SettingsPage() {
  const { t } = useI18n()
  const saved = useSettings()
  const [draft, setDraft] = useState<Settings>(saved)
  const set = <K extends keyof Settings>(key: K, value: Settings[K]) => setDraft((current) => ({ ...current, [key]: value }))

  const save = async (next: Settings, message: 'settings.saved' | 'settings.resetDone') => {
    settingsStore.save(next)
    setDraft(next)
    await applyPreferences(next)
    notify.success(t(message))
  }

  return (
    <div>
      <PageHeader title={t('settings.title')} description={t('settings.description')} />
      <form
        className="space-y-6"
        onSubmit={(event) => {
          event.preventDefault()
          void save(draft, 'settings.saved')
        }}
      >
        <Card>
          <CardHeader>
            <CardTitle>{t('settings.appearance')}</CardTitle>
          </CardHeader>
          <CardContent className="divide-y divide-line">
            <SelectField
              label={t('settings.theme')}
              value={draft.theme}
              onChange={(value) => set('theme', value)}
              options={THEMES.map((theme) => ({ value: theme, label: t(`settings.themes.${theme}`) }))}
              className="max-w-xs pb-3"
            />
            <SwitchField
              label={t('settings.compactSidebar')}
              hint={t('settings.compactSidebarHint')}
              checked={draft.compactSidebar}
              onChange={(value) => set('compactSidebar', value)}
            />
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>{t('settings.notifications')}</CardTitle>
          </CardHeader>
          <CardContent className="divide-y divide-line">
            <SwitchField
              label={t('settings.emailNotifications')}
              hint={t('settings.emailNotificationsHint')}
              checked={draft.emailNotifications}
              onChange={(value) => set('emailNotifications', value)}
            />
            <SwitchField
              label={t('settings.pushNotifications')}
              hint={t('settings.pushNotificationsHint')}
              checked={draft.pushNotifications}
              onChange={(value) => set('pushNotifications', value)}
            />
            <SwitchField
              label={t('settings.weeklySummary')}
              hint={t('settings.weeklySummaryHint')}
              checked={draft.weeklySummary}
              onChange={(value) => set('weeklySummary', value)}
            />
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>{t('settings.localization')}</CardTitle>
          </CardHeader>
          <CardContent>
            <SelectField
              label={t('languageChooser.label')}
              value={draft.language}
              onChange={(value) => set('language', value)}
              options={LANGUAGES.map((language) => ({ value: language, label: t(`languageChooser.names.${language}`) }))}
              className="max-w-xs"
            />
          </CardContent>
        </Card>
        <p className="flex items-start gap-2 text-sm text-muted">
          <Info aria-hidden className="mt-0.5 size-4 shrink-0" />
          {t('settings.localNote')}
        </p>
        <div className="flex flex-wrap gap-2">
          <Button type="submit">{t('settings.save')}</Button>
          <Button variant="outline" onClick={() => void save({ ...DEFAULT_SETTINGS }, 'settings.resetDone')}>
            {t('settings.reset')}
          </Button>
        </div>
      </form>
    </div>
  )
}
