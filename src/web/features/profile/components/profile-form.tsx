import { updateProfileSchema } from '~shared/schemas/profile'
import type { User } from '~shared/schemas/user'
import { NameAndBadges } from '~web/components/name-and-badges'
import { Button } from '~web/components/ui/button'
import { Card, CardContent, CardFooter } from '~web/components/ui/card'
import { Field } from '~web/components/ui/field'
import { Input } from '~web/components/ui/input'
import { toastFailure } from '~web/lib/failures'
import { applyServerFieldErrors, useSchemaForm } from '~web/lib/forms'
import { useI18n } from '~web/lib/i18n'
import { formatDate } from '~web/lib/time'
import { notify } from '~web/lib/toast'
import { useUpdateProfile } from '../api/update-profile'
import { PictureUpload } from './picture-upload'

/** The profile tab: picture, name and phone; the e-mail only an administrator can change. */
export function ProfileForm({ user }: { user: User }) {
  const { t } = useI18n()
  const update = useUpdateProfile()
  const form = useSchemaForm({
    schema: updateProfileSchema,
    defaultValues: { name: user.name, phone: user.phone ?? '' },
  })
  const { errors, isSubmitting } = form.formState

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      const updated = await update.mutateAsync(values)
      form.reset({ name: updated.name, phone: updated.phone ?? '' })
      notify.success(t('profile.updated'))
    } catch (error) {
      if (!applyServerFieldErrors(error, form.setError, ['name', 'phone'])) toastFailure(error, t('profile.updateFailed'))
    }
  })

  return (
    <Card>
      <CardContent className="space-y-6 pt-4 sm:pt-6">
        <div className="flex flex-wrap items-center gap-4">
          <PictureUpload user={user} />
          <NameAndBadges user={user} />
        </div>
        <form id="profile-form" noValidate onSubmit={onSubmit} onFocus={form.preload} className="grid grid-cols-1 gap-4 md:grid-cols-2">
          <Field label={t('profile.name')} error={errors.name?.message}>
            <Input autoComplete="name" {...form.register('name')} />
          </Field>
          <Field label={t('profile.email')} hint={t('profile.emailNote')}>
            <Input type="email" value={user.email} disabled readOnly />
          </Field>
          <Field label={t('profile.phone')} optional error={errors.phone?.message}>
            <Input type="tel" autoComplete="tel" {...form.register('phone')} />
          </Field>
          <Field label={t('profile.createdAt')}>
            <Input value={formatDate(user.createdAt)} disabled readOnly />
          </Field>
        </form>
      </CardContent>
      <CardFooter>
        <Button type="submit" form="profile-form" disabled={isSubmitting}>
          {isSubmitting ? t('profile.updating') : t('profile.update')}
        </Button>
      </CardFooter>
    </Card>
  )
}
