import { SampleStatusPage } from '~web/components/sample-data/sample-status-page'
import { useI18n } from '~web/lib/i18n'
import { formatDate } from '~web/lib/time'
import { PROJECT_STATUSES, type ProjectStatus, SAMPLE_PROJECTS } from '../sample-projects'

/** Developer Dashboard: sample projects, nothing sent to the server. */
export function ProjectsPage() {
  const { t } = useI18n()
  return (
    <SampleStatusPage
      section="developer"
      items={SAMPLE_PROJECTS}
      statuses={PROJECT_STATUSES}
      statusLabel={(status: ProjectStatus) => t(`developer.statuses.${status}`)}
      tones={{ pending: 'amber', inProgress: 'blue', completed: 'green' }}
      matches={(project, needle) => project.name.toLowerCase().includes(needle)}
      columns={[
        { header: t('developer.columns.name'), cell: (project) => project.name, layout: 'title' },
        'status',
        { header: t('developer.columns.deadline'), cell: (project) => formatDate(project.deadline) },
      ]}
      changeStatusFor={(project) => t('developer.changeStatusFor', { name: project.name })}
      statusChanged={(project, status) => t('developer.statusChanged', { name: project.name, status })}
    />
  )
}
