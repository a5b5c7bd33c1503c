import { type ReactElement, type ReactNode, cloneElement, useId } from 'react'
import { useI18n } from '~web/lib/i18n'

interface FieldProps {
  label: ReactNode
  /** The validation or server message shown under the control (translated here). */
  error?: string | undefined
  hint?: ReactNode
  optional?: boolean
  /** One input-like element; it receives id, aria-invalid and aria-describedby. */
  children: ReactElement<{ id?: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }>
}

/** A labelled control with its hint and its error message, wired for screen readers. */
export function Field({ label, error, hint, optional, children }: FieldProps) {
  const { t, tm } = useI18n()
  const id = useId()
  const hintId = `${id}-hint`
  const errorId = `${id}-error`
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="block text-sm font-medium text-fg">
        {label}
        {optional ? <span className="font-normal text-muted"> ({t('common.optional')})</span> : null}
      </label>
      {cloneElement(children, { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {hint ? (
        <p id={hintId} className="text-xs text-muted">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="text-sm text-danger dark:text-red-400">
          {tm(error)}
        </p>
      ) : null}
    </div>
  )
}
