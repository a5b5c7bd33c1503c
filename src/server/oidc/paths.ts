/** Where the protocol engine answers: the issuer is APP_URL + this path. */
export const OIDC_PATH = '/oidc'
