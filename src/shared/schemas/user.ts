import { z } from 'zod'
import { ROLES, STATUSES } from '../constants'

/** The user object as every answer carries it: exactly these fields, nothing about credentials. */
export const userSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  role: z.enum(ROLES),
  status: z.enum(STATUSES),
  emailVerified: z.boolean(),
  profilePicture: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type User = z.infer<typeof userSchema>

export const paginationSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  pages: z.number().int(),
})
export type Pagination = z.infer<typeof paginationSchema>

/** Tokens handed to the browser on sign-in and on refresh. */
export const tokensSchema = z.object({
  accessToken: z.string(),
  refreshToken: z.string(),
  csrfToken: z.string(),
})
export type Tokens = z.infer<typeof tokensSchema>

export const authResultSchema = tokensSchema.extend({ user: userSchema })
export type AuthResult = z.infer<typeof authResultSchema>
