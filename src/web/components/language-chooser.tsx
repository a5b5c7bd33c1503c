import Languages from 'lucide-react/icons/languages'
import { LANGUAGES } from '~shared/constants'
import { Select } from '~web/components/ui/input'
import { isLanguage, useI18n } from '~web/lib/i18n'
import { applyPreferences } from '~web/lib/preferences'
import { settingsStore } from '~web/lib/settings'

/**
 * The interface language, offered before sign-in: the same setting the Settings page keeps
 * (saved in this browser), put into effect at once. Each language is named in itself.
 */
export function LanguageChooser() {
  const { t, lang } = useI18n()
  return (
    <label className="inline-flex items-center gap-2 text-sm text-muted">
      <Languages aria-hidden className="size-4 shrink-0" />
      <span className="sr-only">{t('languageChooser.label')}</span>
      <Select
        value={lang}
        className="h-9 w-auto"
        onChange={(event) => {
          const language = event.target.value
          if (!isLanguage(language)) return
          const next = { ...settingsStore.get(), language }
          settingsStore.save(next)
          void applyPreferences(next)
        }}
      >
        {LANGUAGES.map((language) => (
          <option key={language} value={language} lang={language}>
            {t(`languageChooser.names.${language}`)}
          </option>
        ))}
      </Select>
    </label>
  )
}
