import { useState } from 'react'
import { Badge, type BadgeTone } from '~web/components/ui/badge'
import { Card, CardContent } from '~web/components/ui/card'
import { ChoiceMenu } from '~web/components/ui/choice-menu'
import { SearchField, SelectField } from '~web/components/ui/filter-fields'
import { PageHeader } from '~web/components/ui/page-header'
import { EmptyState } from '~web/components/ui/states'
import { useI18n } from '~web/lib/i18n'
import { notify } from '~web/lib/toast'
import { COMMENT_STATUSES, type CommentStatus, SAMPLE_COMMENTS } from '../sample-comments'

const TONES: Record<CommentStatus, BadgeTone> = { approved: 'green', pending: 'amber', rejected: 'red' }

/** Moderator Dashboard: sample client comments; status changes stay in this page. */
export function CommentsPage() {
  const { t } = useI18n()
  const [comments, setComments] = useState(SAMPLE_COMMENTS)
  const [search, setSearch] = useState('')
  const [status, setStatus] = useState<CommentStatus | 'all'>('all')
  const needle = search.trim().toLowerCase()
  const shown = comments.filter(
    (comment) =>
      (status === 'all' || comment.status === status) &&
      (comment.client.toLowerCase().includes(needle) || comment.text.toLowerCase().includes(needle)),
  )

  const change = (id: string, next: CommentStatus) => {
    const comment = comments.find((item) => item.id === id)
    setComments((current) => current.map((item) => (item.id === id ? { ...item, status: next } : item)))
    if (comment) notify.success(t('moderator.statusChanged', { client: comment.client, status: t(`moderator.statuses.${next}`) }))
  }

  return (
    <div>
      <PageHeader title={t('moderator.title')} description={t('moderator.description')} />
      <Card>
        <CardContent className="space-y-4 pt-4 sm:pt-6">
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-[1fr_auto]">
            <SearchField label={t('moderator.searchLabel')} placeholder={t('moderator.searchPlaceholder')} value={search} onChange={setSearch} />
            <SelectField
              label={t('moderator.statusFilter')}
              value={status}
              onChange={setStatus}
              options={[{ value: 'all' as const, label: t('moderator.allStatuses') }, ...COMMENT_STATUSES.map((value) => ({ value, label: t(`moderator.statuses.${value}`) }))]}
              className="sm:w-48"
            />
          </div>
          {shown.length === 0 ? (
            <EmptyState title={t('moderator.empty')} />
          ) : (
            <table className="w-full text-left text-sm">
              <thead className="hidden border-b border-line text-muted md:table-header-group">
                <tr>
                  <th scope="col" className="px-3 py-2 font-medium">{t('moderator.columns.client')}</th>
                  <th scope="col" className="px-3 py-2 font-medium">{t('moderator.columns.comment')}</th>
                  <th scope="col" className="px-3 py-2 font-medium">{t('moderator.columns.status')}</th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">{t('moderator.columns.actions')}</th>
                </tr>
              </thead>
              <tbody className="block md:table-row-group">
                {shown.map((comment) => (
                  <tr key={comment.id} className="block space-y-2 border-b border-line py-3 last:border-0 md:table-row md:space-y-0 md:py-0">
                    <td className="block font-medium md:table-cell md:px-3 md:py-3">{comment.client}</td>
                    <td className="block break-words md:table-cell md:px-3 md:py-3">{comment.text}</td>
                    <td className="flex items-center justify-between gap-3 md:table-cell md:px-3 md:py-3">
                      <span className="text-muted md:hidden">{t('moderator.columns.status')}</span>
                      <Badge tone={TONES[comment.status]}>{t(`moderator.statuses.${comment.status}`)}</Badge>
                    </td>
                    <td className="block md:table-cell md:px-3 md:py-3 md:text-right">
                      <ChoiceMenu
                        label={t('moderator.changeStatus')}
                        accessibleLabel={t('moderator.changeStatusFor', { client: comment.client })}
                        value={comment.status}
                        options={COMMENT_STATUSES.map((value) => ({ value, label: t(`moderator.statuses.${value}`) }))}
                        onChange={(next) => change(comment.id, next)}
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
