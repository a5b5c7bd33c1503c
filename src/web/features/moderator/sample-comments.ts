/** The moderator dashboard's sample comments (by design: hard-coded, changes not persisted). */
export const COMMENT_STATUSES = ['approved', 'pending', 'rejected'] as const
export type CommentStatus = (typeof COMMENT_STATUSES)[number]

export interface SampleComment {
  id: string
  client: string
  text: string
  status: CommentStatus
}

export const SAMPLE_COMMENTS: SampleComment[] = [
  { id: 'c1', client: 'Acme Corp', text: 'The new dashboard is much faster, thank you!', status: 'approved' },
  { id: 'c2', client: 'Globex', text: 'We cannot find the export button since the last update.', status: 'pending' },
  { id: 'c3', client: 'Initech', text: 'Please add an option to download invoices as PDF.', status: 'pending' },
  { id: 'c4', client: 'Umbrella Ltd', text: 'Buy cheap watches at this link!!!', status: 'rejected' },
  { id: 'c5', client: 'Stark Industries', text: 'Support solved our sign-in problem within an hour. Great service.', status: 'approved' },
]
