import { Link } from 'react-router'
import EllipsisVertical from 'lucide-react/icons/ellipsis-vertical'
import KeyRound from 'lucide-react/icons/key-round'
import Pencil from 'lucide-react/icons/pencil'
import Power from 'lucide-react/icons/power'
import Trash2 from 'lucide-react/icons/trash-2'
import type { Application } from '~shared/schemas/applications'
import { ColumnHeader, LabelledCell } from '~web/components/admin-list'
import { Badge } from '~web/components/ui/badge'
import { buttonClass } from '~web/components/ui/button'
import { Menu, MenuContent, MenuItem, MenuTrigger } from '~web/components/ui/dropdown-menu'
import { applicationPagePath } from '~web/config/paths'
import { useI18n } from '~web/lib/i18n'
import { formatDate } from '~web/lib/time'

export type ApplicationAction = 'edit' | 'replace-secret' | 'toggle' | 'delete'

/**
 * The applications. From md up a table; below, each row a card whose cells carry their column
 * name. Each name opens the application's page (its client ID and the provider's addresses). Each row's actions button carries the application's id, so focus can go back to it when
 * a dialog it opened closes.
 */
export function ApplicationsTable({ applications, onAction }: { applications: Application[]; onAction: (application: Application, action: ApplicationAction) => void }) {
  const { t } = useI18n()
  return (
    <div className="md:overflow-x-auto">
      <table tabIndex={-1} data-list aria-label={t('applications.list')} className="w-full text-left text-sm outline-none">
        <thead className="hidden border-b border-line text-muted md:table-header-group">
          <tr>
            <ColumnHeader>{t('applications.columns.name')}</ColumnHeader>
            <ColumnHeader>{t('applications.columns.type')}</ColumnHeader>
            <ColumnHeader>{t('applications.columns.firstParty')}</ColumnHeader>
            <ColumnHeader>{t('applications.columns.status')}</ColumnHeader>
            <ColumnHeader>{t('applications.columns.redirectUris')}</ColumnHeader>
            <ColumnHeader>{t('applications.columns.created')}</ColumnHeader>
            <th scope="col" className="px-2 py-2 text-right font-medium">
              <span className="sr-only">{t('applications.columns.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody className="block md:table-row-group">
          {applications.map((application) => (
            <tr key={application.id} className="relative block border-b border-line py-3 last:border-0 md:table-row md:py-0">
              <td className="block pr-12 md:table-cell md:px-2 md:py-3">
                <span className="font-medium break-words">
                  <Link to={applicationPagePath(application.id)} className="text-primary underline-offset-4 hover:underline dark:text-blue-300">
                    {application.name}
                  </Link>
                </span>
                <span className="block font-mono text-xs wrap-anywhere text-muted">{application.id}</span>
              </td>
              <LabelledCell label={t('applications.columns.type')}>{t(`applications.types.${application.type}`)}</LabelledCell>
              <LabelledCell label={t('applications.columns.firstParty')}>{application.firstParty ? t('applications.yes') : t('applications.no')}</LabelledCell>
              <LabelledCell label={t('applications.columns.status')}>
                <Badge tone={application.enabled ? 'green' : 'gray'}>{application.enabled ? t('applications.enabled') : t('applications.disabled')}</Badge>
              </LabelledCell>
              {/* On a phone the address goes under its label, with the row's whole width. */}
              <td className="block py-1 md:table-cell md:px-2 md:py-3">
                <span className="block text-muted md:hidden">{t('applications.columns.redirectUris')}</span>
                <span className="block min-w-0 font-mono text-xs wrap-anywhere">{application.redirectUris[0]}</span>
                {application.redirectUris.length > 1 ? (
                  <span className="block text-xs text-muted">{t('applications.moreUris', { count: String(application.redirectUris.length - 1) })}</span>
                ) : null}
              </td>
              <LabelledCell label={t('applications.columns.created')}>{formatDate(application.createdAt)}</LabelledCell>
              <td className="absolute top-2 right-0 md:static md:table-cell md:px-2 md:py-3 md:text-right">
                <RowActions application={application} onAction={onAction} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function RowActions({ application, onAction }: { application: Application; onAction: (application: Application, action: ApplicationAction) => void }) {
  const { t } = useI18n()
  return (
    <Menu>
      <MenuTrigger className={buttonClass('ghost', 'icon')} aria-label={t('applications.actionsFor', { name: application.name })} data-row-actions={application.id}>
        <EllipsisVertical aria-hidden className="size-4" />
      </MenuTrigger>
      <MenuContent>
        <MenuItem onSelect={() => onAction(application, 'edit')}>
          <Pencil aria-hidden className="size-4" />
          {t('applications.edit')}
        </MenuItem>
        {application.type === 'confidential' || (application.type === 'service' && !application.jwks) ? (
          <MenuItem onSelect={() => onAction(application, 'replace-secret')}>
            <KeyRound aria-hidden className="size-4" />
            {t('applications.replaceSecret')}
          </MenuItem>
        ) : null}
        <MenuItem onSelect={() => onAction(application, 'toggle')}>
          <Power aria-hidden className="size-4" />
          {application.enabled ? t('applications.disable') : t('applications.enable')}
        </MenuItem>
        <MenuItem danger onSelect={() => onAction(application, 'delete')}>
          <Trash2 aria-hidden className="size-4" />
          {t('applications.delete')}
        </MenuItem>
      </MenuContent>
    </Menu>
  )
}
