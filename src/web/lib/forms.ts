import { type FormEvent, useCallback, useMemo, useRef, useState } from 'react'
import type { z } from 'zod'
import { type FailureCode, isApiError } from './failures'

/**
 * Forms, validated with the shared zod schemas: the very ones the server uses, so the messages
 * under the fields are the shared schemas'. Inputs are uncontrolled (read on submit); after a first
 * submit, every change re-validates. The schema (and zod) load when the form is first focused,
 * which keeps them out of the sign-in page's first load (docs/decisions/0202-own-form-hook.md).
 */

type Values = Record<string, unknown>
type Schema = z.ZodType<Values, Values>
type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement

export type FieldErrors<N extends string> = Partial<Record<N, { message: string }>>

export interface SchemaForm<S extends Schema> {
  register(name: FieldName<S>): {
    name: string
    defaultValue: string
    ref: (element: Control | null) => void
    onChange: () => void
  }
  handleSubmit(onValid: (data: z.output<S>) => unknown): (event?: FormEvent) => Promise<void>
  formState: { errors: FieldErrors<FieldName<S>>; isSubmitting: boolean }
  setError(name: FieldName<S>, error: { message: string }, options?: { shouldFocus?: boolean }): void
  reset(values?: Partial<Record<FieldName<S>, string | null>>): void
  /** Starts loading the schema (call on focus). */
  preload(): void
}

export type FieldName<S extends Schema> = Extract<keyof z.input<S>, string>

/** Loads a schema once, sharing the load among every form that uses it. */
export function lazySchema<S extends Schema>(load: () => Promise<S>): () => Promise<S> {
  let loading: Promise<S> | null = null
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = null
      throw error
    }))
}

export function useSchemaForm<S extends Schema>({
  schema: schemaOrLoader,
  defaultValues,
}: {
  /** The schema, or a loader of it (public pages: see lazySchema). */
  schema: S | (() => Promise<S>)
  defaultValues: Record<FieldName<S>, string | null | undefined>
}): SchemaForm<S> {
  const schema = useMemo(() => (typeof schemaOrLoader === 'function' ? schemaOrLoader : () => Promise.resolve(schemaOrLoader)), [schemaOrLoader])
  const controls = useRef(new Map<string, Control>())
  const defaults = useRef<Record<string, string>>(toStrings(defaultValues))
  const submitted = useRef(false)
  const [errors, setErrors] = useState<FieldErrors<FieldName<S>>>({})
  const [isSubmitting, setSubmitting] = useState(false)

  const read = useCallback(() => {
    const values: Record<string, string> = { ...defaults.current }
    controls.current.forEach((control, name) => {
      values[name] = control.value
    })
    return values
  }, [])

  const validate = useCallback(async () => {
    const result = await (await schema()).safeParseAsync(read())
    if (result.success) return { data: result.data as z.output<S>, errors: {} }
    const found: FieldErrors<FieldName<S>> = {}
    for (const issue of result.error.issues) {
      const name = String(issue.path[0] ?? '') as FieldName<S>
      if (name && !found[name]) found[name] = { message: issue.message }
    }
    return { data: null, errors: found }
  }, [schema, read])

  const focus = useCallback((name: string) => controls.current.get(name)?.focus(), [])

  return useMemo<SchemaForm<S>>(
    () => ({
      register: (name) => ({
        name,
        defaultValue: defaults.current[name] ?? '',
        ref(element) {
          if (element) controls.current.set(name, element)
          else controls.current.delete(name)
        },
        onChange() {
          if (submitted.current) void validate().then((result) => setErrors(result.errors))
        },
      }),
      handleSubmit: (onValid) => async (event) => {
        event?.preventDefault()
        submitted.current = true
        setSubmitting(true)
        try {
          const result = await validate()
          setErrors(result.errors)
          if (!result.data) {
            const first = [...controls.current.keys()].find((name) => name in result.errors)
            if (first) focus(first)
            return
          }
          await onValid(result.data)
        } finally {
          setSubmitting(false)
        }
      },
      formState: { errors, isSubmitting },
      setError(name, error, options) {
        setErrors((current) => ({ ...current, [name]: { message: error.message } }))
        if (options?.shouldFocus) focus(name)
      },
      reset(values) {
        if (values) defaults.current = { ...defaults.current, ...toStrings(values) }
        controls.current.forEach((control, name) => {
          control.value = defaults.current[name] ?? ''
        })
        submitted.current = false
        setErrors({})
      },
      preload() {
        schema().catch(() => undefined)
      },
    }),
    [errors, isSubmitting, validate, focus, schema],
  )
}

function toStrings(values: Record<string, string | null | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, value ?? '']))
}

/**
 * Puts the server's field errors (the 400 envelope's `errors`, or a failure whose code belongs to
 * a field, such as EMAIL_TAKEN) under their fields. True when at least one was placed.
 */
export function applyServerFieldErrors<N extends string>(
  error: unknown,
  setError: (name: N, error: { message: string }, options?: { shouldFocus?: boolean }) => void,
  fields: readonly N[],
  codeFields: Partial<Record<FailureCode, N>> = {},
): boolean {
  if (!isApiError(error)) return false
  let placed = false
  for (const { field, message } of error.fieldErrors) {
    if ((fields as readonly string[]).includes(field)) {
      setError(field as N, { message }, { shouldFocus: !placed })
      placed = true
    }
  }
  const byCode = codeFields[error.code]
  if (!placed && byCode) {
    setError(byCode, { message: error.message }, { shouldFocus: true })
    placed = true
  }
  return placed
}
