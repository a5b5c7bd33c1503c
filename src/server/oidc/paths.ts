/** Where the protocol engine answers: the issuer is APP_URL + this path. */
export const OIDC_PATH = '/oidc'

/** The resource indicator (RFC 8707) of the admin API: client credentials tokens are issued for it (contract section 11). */
export function apiResource(appUrl: string): string {
  return `${appUrl.replace(/\/+$/, '')}/api`
}
