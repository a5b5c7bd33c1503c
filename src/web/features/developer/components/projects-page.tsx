import { useState } from 'react'
import { Badge, type BadgeTone } from '~web/components/ui/badge'
import { Card, CardContent } from '~web/components/ui/card'
import { ChoiceMenu } from '~web/components/ui/choice-menu'
import { SearchField, SelectField } from '~web/components/ui/filter-fields'
import { PageHeader } from '~web/components/ui/page-header'
import { EmptyState } from '~web/components/ui/states'
import { useI18n } from '~web/lib/i18n'
import { formatDate } from '~web/lib/time'
import { notify } from '~web/lib/toast'
import { PROJECT_STATUSES, type ProjectStatus, SAMPLE_PROJECTS } from '../sample-projects'

const TONES: Record<ProjectStatus, BadgeTone> = { pending: 'amber', inProgress: 'blue', completed: 'green' }

/** Developer Dashboard: sample projects, nothing sent to the server. */
export function ProjectsPage() {
  const { t } = useI18n()
  const [projects, setProjects] = useState(SAMPLE_PROJECTS)
  const [search, setSearch] = useState('')
  const [status, setStatus] = useState<ProjectStatus | 'all'>('all')
  const needle = search.trim().toLowerCase()
  const shown = projects.filter((project) => (status === 'all' || project.status === status) && project.name.toLowerCase().includes(needle))

  const change = (id: string, next: ProjectStatus) => {
    const project = projects.find((item) => item.id === id)
    setProjects((current) => current.map((item) => (item.id === id ? { ...item, status: next } : item)))
    if (project) notify.success(t('developer.statusChanged', { name: project.name, status: t(`developer.statuses.${next}`) }))
  }

  return (
    <div>
      <PageHeader title={t('developer.title')} description={t('developer.description')} />
      <Card>
        <CardContent className="space-y-4 pt-4 sm:pt-6">
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-[1fr_auto]">
            <SearchField label={t('developer.searchLabel')} placeholder={t('developer.searchPlaceholder')} value={search} onChange={setSearch} />
            <SelectField
              label={t('developer.statusFilter')}
              value={status}
              onChange={setStatus}
              options={[{ value: 'all' as const, label: t('developer.allStatuses') }, ...PROJECT_STATUSES.map((value) => ({ value, label: t(`developer.statuses.${value}`) }))]}
              className="sm:w-48"
            />
          </div>
          {shown.length === 0 ? (
            <EmptyState title={t('developer.empty')} />
          ) : (
            <table className="w-full text-left text-sm">
              <thead className="hidden border-b border-line text-muted md:table-header-group">
                <tr>
                  <th scope="col" className="px-3 py-2 font-medium">{t('developer.columns.name')}</th>
                  <th scope="col" className="px-3 py-2 font-medium">{t('developer.columns.status')}</th>
                  <th scope="col" className="px-3 py-2 font-medium">{t('developer.columns.deadline')}</th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">{t('developer.columns.actions')}</th>
                </tr>
              </thead>
              <tbody className="block md:table-row-group">
                {shown.map((project) => (
                  <tr key={project.id} className="block space-y-2 border-b border-line py-3 last:border-0 md:table-row md:space-y-0 md:py-0">
                    <td className="block font-medium break-words md:table-cell md:px-3 md:py-3">{project.name}</td>
                    <td className="flex items-center justify-between gap-3 md:table-cell md:px-3 md:py-3">
                      <span className="text-muted md:hidden">{t('developer.columns.status')}</span>
                      <Badge tone={TONES[project.status]}>{t(`developer.statuses.${project.status}`)}</Badge>
                    </td>
                    <td className="flex items-center justify-between gap-3 md:table-cell md:px-3 md:py-3">
                      <span className="text-muted md:hidden">{t('developer.columns.deadline')}</span>
                      <span>{formatDate(project.deadline)}</span>
                    </td>
                    <td className="block md:table-cell md:px-3 md:py-3 md:text-right">
                      <ChoiceMenu
                        label={t('developer.changeStatus')}
                        accessibleLabel={t('developer.changeStatusFor', { name: project.name })}
                        value={project.status}
                        options={PROJECT_STATUSES.map((value) => ({ value, label: t(`developer.statuses.${value}`) }))}
                        onChange={(next) => change(project.id, next)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </CardContent>
      </Card>
    </div>
  )
}
