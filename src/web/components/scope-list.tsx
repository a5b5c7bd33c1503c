import Check from 'lucide-react/icons/check'
import type { TranslationKey } from '~web/lib/i18n'
import { useI18n } from '~web/lib/i18n'

/**
 * What an application may see, one line per scope it was granted or asks for, in the person's
 * words: the consent page and Connected apps say it alike. `openid` alone only says that the app
 * knows who you are; scopes the product does not know are not shown.
 */
const PHRASES: Record<string, TranslationKey> = {
  profile: 'oidc.scopes.profile',
  email: 'oidc.scopes.email',
  phone: 'oidc.scopes.phone',
  roles: 'oidc.scopes.roles',
  offline_access: 'oidc.scopes.offline_access',
}

export function scopePhrases(scopes: readonly string[]): TranslationKey[] {
  const known = scopes.flatMap((scope) => (Object.hasOwn(PHRASES, scope) ? [PHRASES[scope]!] : []))
  return known.length > 0 ? [...new Set(known)] : ['oidc.scopes.openid']
}

export function ScopeList({ scopes, label, className }: { scopes: readonly string[]; label: string; className?: string }) {
  const { t } = useI18n()
  return (
    <ul aria-label={label} className={className ?? 'space-y-2'}>
      {scopePhrases(scopes).map((key) => (
        <li key={key} className="flex items-start gap-2">
          <Check aria-hidden className="mt-0.5 size-4 shrink-0 text-green-600 dark:text-green-400" />
          <span>{t(key)}</span>
        </li>
      ))}
    </ul>
  )
}
