import EllipsisVertical from 'lucide-react/icons/ellipsis-vertical'
import Pencil from 'lucide-react/icons/pencil'
import Power from 'lucide-react/icons/power'
import Trash2 from 'lucide-react/icons/trash-2'
import type { IdentityProvider } from '~shared/schemas/identity-providers'
import { ColumnHeader, LabelledCell } from '~web/components/admin-list'
import { Badge } from '~web/components/ui/badge'
import { buttonClass } from '~web/components/ui/button'
import { Menu, MenuContent, MenuItem, MenuTrigger } from '~web/components/ui/dropdown-menu'
import { useI18n } from '~web/lib/i18n'

export type ProviderAction = 'edit' | 'toggle' | 'delete'

/**
 * The providers: name, kind, enabled or not, the e-mail domains it signs in. From md up a table;
 * below, each row a card whose cells carry their column name. Each row's actions button carries
 * the provider's id, so focus can go back to it when a dialog it opened closes.
 */
export function ProvidersTable({ providers, onAction }: { providers: IdentityProvider[]; onAction: (provider: IdentityProvider, action: ProviderAction) => void }) {
  const { t } = useI18n()
  return (
    <div className="md:overflow-x-auto">
      <table tabIndex={-1} data-list aria-label={t('signInMethods.list')} className="w-full text-left text-sm outline-none">
        <thead className="hidden border-b border-line text-muted md:table-header-group">
          <tr>
            <ColumnHeader>{t('signInMethods.columns.name')}</ColumnHeader>
            <ColumnHeader>{t('signInMethods.columns.kind')}</ColumnHeader>
            <ColumnHeader>{t('signInMethods.columns.status')}</ColumnHeader>
            <ColumnHeader>{t('signInMethods.columns.domains')}</ColumnHeader>
            <th scope="col" className="px-2 py-2 text-right font-medium">
              <span className="sr-only">{t('signInMethods.columns.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody className="block md:table-row-group">
          {providers.map((provider) => (
            <tr key={provider.id} className="relative block border-b border-line py-3 last:border-0 md:table-row md:py-0">
              <th scope="row" className="block pr-12 text-left font-normal md:table-cell md:px-2 md:py-3">
                <span className="block font-medium break-words">{provider.name}</span>
                <span className="block font-mono text-xs wrap-anywhere text-muted">{provider.id}</span>
              </th>
              <LabelledCell label={t('signInMethods.columns.kind')}>{t(`signInMethods.kinds.${provider.kind}`)}</LabelledCell>
              <LabelledCell label={t('signInMethods.columns.status')}>
                <Badge tone={provider.enabled ? 'green' : 'gray'}>{provider.enabled ? t('signInMethods.enabled') : t('signInMethods.disabled')}</Badge>
              </LabelledCell>
              <LabelledCell label={t('signInMethods.columns.domains')}>
                {provider.emailDomains.length > 0 ? (
                  <span className="wrap-anywhere">{provider.emailDomains.join(', ')}</span>
                ) : (
                  <span className="text-muted">{t('signInMethods.noDomains')}</span>
                )}
              </LabelledCell>
              <td className="absolute top-2 right-0 md:static md:table-cell md:px-2 md:py-3 md:text-right">
                <RowActions provider={provider} onAction={onAction} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function RowActions({ provider, onAction }: { provider: IdentityProvider; onAction: (provider: IdentityProvider, action: ProviderAction) => void }) {
  const { t } = useI18n()
  return (
    <Menu>
      <MenuTrigger className={buttonClass('ghost', 'icon')} aria-label={t('signInMethods.actionsFor', { name: provider.name })} data-row-actions={provider.id}>
        <EllipsisVertical aria-hidden className="size-4" />
      </MenuTrigger>
      <MenuContent>
        <MenuItem onSelect={() => onAction(provider, 'edit')}>
          <Pencil aria-hidden className="size-4" />
          {t('signInMethods.edit')}
        </MenuItem>
        <MenuItem onSelect={() => onAction(provider, 'toggle')}>
          <Power aria-hidden className="size-4" />
          {provider.enabled ? t('signInMethods.disable') : t('signInMethods.enable')}
        </MenuItem>
        <MenuItem danger onSelect={() => onAction(provider, 'delete')}>
          <Trash2 aria-hidden className="size-4" />
          {t('signInMethods.delete')}
        </MenuItem>
      </MenuContent>
    </Menu>
  )
}
