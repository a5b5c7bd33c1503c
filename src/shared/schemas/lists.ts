import { z } from 'zod'
import { ACTIVITY_FILTERS, PAGE_LIMIT_MAX, PAGE_SIZE_ACTIVITY, PAGE_SIZE_USERS, ROLES, STATUSES } from '../constants'
import { paginationSchema, userSchema } from './user'

/**
 * Query strings of the list calls and the shapes of their answers. `page` and `limit` must be
 * positive integers (a 400 otherwise); a larger `limit` than 100 is answered with 100. Role and
 * status filters take the values of ROLES and STATUSES; `all` or nothing means no filter. Pages start no further
 * than LIST_OFFSET_MAX entries in (each page skipped is work for the database); past that, narrow
 * the search or the filters.
 */
export const LIST_OFFSET_MAX = 100_000
export const pageTooDeepMessage = 'This page is too far back. Please narrow the search or the filters.'

/** Written as a plain decimal integer above zero: not `0x10`, `1e3`, `+1` or `1.0`. */
const positiveInt = (field: string) => {
  const error = `${field} must be a positive integer`
  return z
    .string({ error })
    .regex(/^0*[1-9]\d*$/, { error })
    .transform(Number)
    .pipe(z.number().max(Number.MAX_SAFE_INTEGER, { error }))
}

const search = z
  .string()
  .trim()
  .max(100, { error: 'Search must be at most 100 characters' })
  .regex(/^[^\p{Cc}]*$/u, { error: 'Search must not contain control characters' })
  .optional()
  .transform((value) => (value ? value : undefined))

const allOr = <const T extends readonly [string, ...string[]]>(values: T, field: string) =>
  z
    .enum([...values, 'all', ''] as unknown as readonly [T[number] | 'all' | '', ...(T[number] | 'all' | '')[]], {
      error: `Unknown ${field}`,
    })
    .optional()
    .transform((value) => (value === 'all' || value === '' ? undefined : (value as T[number] | undefined)))

const pageFields = (defaultLimit: number) => ({
  page: positiveInt('page').default(1),
  limit: positiveInt('limit')
    .default(defaultLimit)
    .transform((value) => Math.min(value, PAGE_LIMIT_MAX)),
})

/** Page and limit of the activity lists: 20 a page by default. */
export const pageQuery = pageFields(PAGE_SIZE_ACTIVITY)

const notTooDeep = (value: { page: number; limit: number }, ctx: z.RefinementCtx) => {
  if ((value.page - 1) * value.limit > LIST_OFFSET_MAX) ctx.addIssue({ code: 'custom', path: ['page'], message: pageTooDeepMessage })
}

/** Columns the admin's user list sorts by (contract section 7); the id breaks ties. */
export const USER_SORTS = ['name', 'email', 'role', 'status', 'createdAt', 'lastSignInAt'] as const
export type UserSort = (typeof USER_SORTS)[number]
export const SORT_ORDERS = ['asc', 'desc'] as const
export type SortOrder = (typeof SORT_ORDERS)[number]

const oneOf = <const T extends readonly [string, ...string[]]>(values: T, field: string) => z.enum(values, { error: `Unknown ${field}` }).optional()

const yesNo = (field: string) =>
  z
    .enum(['true', 'false'], { error: `${field} must be true or false` })
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true'))

/** The filters and order of the admin's user list, shared by the list and its CSV export. */
const userFilterFields = {
  search,
  role: allOr(ROLES, 'role'),
  status: allOr(STATUSES, 'status'),
  sort: oneOf(USER_SORTS, 'sort').default('createdAt'),
  order: oneOf(SORT_ORDERS, 'order').default('desc'),
  verified: yesNo('verified'),
  mfa: yesNo('mfa'),
  /** Accounts with no sign-in for this many days (never signed in included). */
  inactiveDays: positiveInt('inactiveDays')
    .pipe(z.number().max(36_500, { error: 'inactiveDays must be at most 36500' }))
    .optional(),
}

/** The admin's user list: 10 a page by default. */
export const userListQuerySchema = z
  .strictObject({
    ...pageFields(PAGE_SIZE_USERS),
    ...userFilterFields,
  })
  .superRefine(notTooDeep)
export type UserListQuery = z.output<typeof userListQuerySchema>

/** The user list's CSV export: the same filters and order, no pages. */
export const userExportQuerySchema = z.strictObject(userFilterFields)
export type UserExportQuery = z.output<typeof userExportQuerySchema>

const activityValues = ACTIVITY_FILTERS.filter((value) => value !== 'all') as unknown as readonly [string, ...string[]]

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/
// A calendar date, or an instant with its offset (Z or ±hh:mm), seconds and fractions optional.
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/

/**
 * A bound of a date range: an ISO 8601 date (a whole UTC day) or an instant. `from` starts at the
 * date's first moment, `to` ends at its last (inclusive); an instant is taken as it is.
 */
const dateBound = (field: 'from' | 'to') => {
  const error = `${field} must be an ISO 8601 date or date and time`
  return z
    .string({ error })
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return undefined
      const dateOnly = DATE_ONLY.test(value)
      if (!dateOnly && !INSTANT.test(value)) {
        ctx.addIssue({ code: 'custom', message: error })
        return z.NEVER
      }
      const start = new Date(dateOnly ? `${value}T00:00:00.000Z` : value)
      // Rejects impossible dates (2026-02-30 rolls over in Date), and years before 1000 (year 0
      // does not exist for the database).
      if (Number.isNaN(start.getTime()) || start.getUTCFullYear() < 1000 || (dateOnly && start.toISOString().slice(0, 10) !== value)) {
        ctx.addIssue({ code: 'custom', message: error })
        return z.NEVER
      }
      return dateOnly && field === 'to' ? new Date(start.getTime() + 86_400_000 - 1) : start
    })
}

export const fromAfterToMessage = 'from must not be after to'

const inOrder = (value: { from?: Date | undefined; to?: Date | undefined }, ctx: z.RefinementCtx) => {
  if (value.from && value.to && value.from > value.to) ctx.addIssue({ code: 'custom', path: ['from'], message: fromAfterToMessage })
}

/** The filters of everyone's activity log, shared by the list and its CSV export. */
const activityFilterFields = {
  search,
  activity: allOr(activityValues, 'activity'),
  from: dateBound('from'),
  to: dateBound('to'),
}

/** One user's own entries: search and activity filter. */
export const activityListQuerySchema = z
  .strictObject({
    ...pageQuery,
    search,
    activity: allOr(activityValues, 'activity'),
  })
  .superRefine(notTooDeep)
export type ActivityListQuery = z.output<typeof activityListQuerySchema>

/** Everyone's entries (staff): the filters above and a date range. */
export const activityLogQuerySchema = z
  .strictObject({ ...pageQuery, ...activityFilterFields })
  .superRefine(notTooDeep)
  .superRefine(inOrder)
export type ActivityLogQuery = z.output<typeof activityLogQuerySchema>

/** Everyone's entries as CSV: the same filters, no pages. */
export const activityExportQuerySchema = z.strictObject(activityFilterFields).superRefine(inOrder)
export type ActivityExportQuery = z.output<typeof activityExportQuerySchema>

export const activityUserSchema = userSchema.pick({ id: true, name: true, email: true, role: true, profilePicture: true })

/**
 * One field an admin's edit changed, from what to what: of a user, or of an application (its lists
 * written one item after the other, separated by ", "). A phone number's values are never
 * written (staff roles read the log): `from` and `to` are null for it.
 */
export const USER_CHANGED_FIELDS = ['name', 'email', 'phone', 'role', 'status'] as const
export const APPLICATION_CHANGED_FIELDS = [
  'redirectUris',
  'postLogoutRedirectUris',
  'backchannelLogoutUri',
  'allowedRoles',
  'firstParty',
  'deviceFlow',
  'enabled',
  'scopes',
] as const
export const CHANGED_FIELDS = [...USER_CHANGED_FIELDS, ...APPLICATION_CHANGED_FIELDS] as const
export const fieldChangeSchema = z.object({
  field: z.enum(CHANGED_FIELDS),
  from: z.string().nullable(),
  to: z.string().nullable(),
})
export type FieldChange = z.infer<typeof fieldChangeSchema>

/**
 * Who acted on someone else's account, by name as it was then: a person (an admin; id null once
 * deleted), or a service application (its client id).
 */
export const activityActorSchema = z.object({ type: z.enum(['user', 'application']), id: z.string().nullable(), name: z.string() })
export type ActivityActor = z.infer<typeof activityActorSchema>

export const activityEntrySchema = z.object({
  id: z.string(),
  activity: z.string(),
  details: z.string().nullable(),
  ipAddress: z.string().nullable(),
  createdAt: z.string(),
  /** Who did it, when it was not the user the entry is about (an admin); absent otherwise. */
  actor: activityActorSchema.optional(),
  /** An admin edit's changed fields; absent on every other entry. */
  changes: z.array(fieldChangeSchema).optional(),
  /** In the staff view: whom the entry is about (null once that user was deleted). */
  user: activityUserSchema.nullable().optional(),
})
export type ActivityEntry = z.infer<typeof activityEntrySchema>

export const activityListSchema = z.object({ activities: z.array(activityEntrySchema), pagination: paginationSchema })
export type ActivityList = z.infer<typeof activityListSchema>

/** A user as the admin's list and user page show it: the spec's fields, the last sign-in and two-factor. */
export const adminUserSchema = userSchema.extend({
  lastSignInAt: z.string().nullable(),
  mfaEnabled: z.boolean(),
})
export type AdminUser = z.infer<typeof adminUserSchema>

export const userListSchema = z.object({ users: z.array(adminUserSchema), pagination: paginationSchema })
export type UserList = z.infer<typeof userListSchema>

export const adminStatsSchema = z.object({
  stats: z.object({
    totalUsers: z.number().int(),
    byStatus: z.object({ active: z.number().int(), inactive: z.number().int(), suspended: z.number().int() }),
    byRole: z.object({
      admins: z.number().int(),
      developers: z.number().int(),
      moderators: z.number().int(),
      clients: z.number().int(),
    }),
    /** Accounts whose address is not verified yet (invited people who have not joined among them). */
    unverified: z.number().int(),
    /** Accounts with two-factor sign-in on. */
    mfaEnabled: z.number().int(),
  }),
  /** Accounts created on each of the last 30 days (UTC), oldest first, days without any included. */
  signUps: z.array(z.object({ date: z.string(), count: z.number().int() })),
  recentActivities: z.array(activityEntrySchema),
})
export type AdminStats = z.infer<typeof adminStatsSchema>
