import { SampleStatusPage } from '~web/components/sample-data/sample-status-page'
import { useI18n } from '~web/lib/i18n'
import { COMMENT_STATUSES, type CommentStatus, SAMPLE_COMMENTS } from '../sample-comments'

/** Moderator Dashboard: sample client comments; status changes stay in this page. */
export function CommentsPage() {
  const { t } = useI18n()
  return (
    <SampleStatusPage
      section="moderator"
      items={SAMPLE_COMMENTS}
      statuses={COMMENT_STATUSES}
      statusLabel={(status: CommentStatus) => t(`moderator.statuses.${status}`)}
      tones={{ approved: 'green', pending: 'amber', rejected: 'red' }}
      matches={(comment, needle) => comment.client.toLowerCase().includes(needle) || comment.text.toLowerCase().includes(needle)}
      columns={[
        { header: t('moderator.columns.client'), cell: (comment) => comment.client, layout: 'title' },
        { header: t('moderator.columns.comment'), cell: (comment) => comment.text, layout: 'text' },
        'status',
      ]}
      changeStatusFor={(comment) => t('moderator.changeStatusFor', { client: comment.client })}
      statusChanged={(comment, status) => t('moderator.statusChanged', { client: comment.client, status })}
    />
  )
}
