/**
 * SCIM's own failure answer (RFC 7644 section 3.12): `urn:ietf:params:scim:api:messages:2.0:Error`
 * with `status` as a string, a `scimType` where the RFC names one, and `detail`. Everything under
 * /scim/v2 fails with one of these, never with the API's envelope.
 */
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error'

export type ScimType =
  'invalidFilter' | 'tooMany' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' | 'invalidVers' | 'sensitive'

export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail)
  }

  toBody(): ScimErrorBody {
    return { schemas: [ERROR_SCHEMA], status: String(this.status), ...(this.scimType ? { scimType: this.scimType } : {}), detail: this.detail }
  }
}

export interface ScimErrorBody {
  schemas: [typeof ERROR_SCHEMA]
  status: string
  scimType?: ScimType
  detail: string
}

export const invalidFilter = (detail: string) => new ScimError(400, detail, 'invalidFilter')
export const invalidSyntax = (detail: string) => new ScimError(400, detail, 'invalidSyntax')
export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue')
export const invalidPath = (detail: string) => new ScimError(400, detail, 'invalidPath')
export const noTarget = (detail: string) => new ScimError(400, detail, 'noTarget')
export const mutability = (detail: string) => new ScimError(400, detail, 'mutability')
export const uniqueness = (detail: string) => new ScimError(409, detail, 'uniqueness')
export const scimNotFound = (detail = 'Resource not found') => new ScimError(404, detail)
export const scimForbidden = (detail: string) => new ScimError(403, detail)
export const scimUnauthorized = (detail = 'Authentication required: a bearer credential with the scim scope') => new ScimError(401, detail)
