/** The developer dashboard's sample projects (by design: hard-coded, no server calls). */
export const PROJECT_STATUSES = ['pending', 'inProgress', 'completed'] as const
export type ProjectStatus = (typeof PROJECT_STATUSES)[number]

export interface SampleProject {
  id: string
  name: string
  status: ProjectStatus
  deadline: string
}

export const SAMPLE_PROJECTS: SampleProject[] = [
  { id: 'p1', name: 'Customer portal redesign', status: 'inProgress', deadline: '2026-09-30' },
  { id: 'p2', name: 'Billing API v2', status: 'pending', deadline: '2026-11-15' },
  { id: 'p3', name: 'Mobile app accessibility audit', status: 'completed', deadline: '2026-05-31' },
  { id: 'p4', name: 'Single sign-on integration', status: 'inProgress', deadline: '2026-08-20' },
  { id: 'p5', name: 'Data warehouse migration', status: 'pending', deadline: '2027-01-31' },
]
