import { generateSecret, generateURI, verifySync } from 'otplib'
import QRCode from 'qrcode'

/**
 * Authenticator-app codes (RFC 6238) as every app reads them: SHA-1, 6 digits, 30-second steps,
 * a 160-bit base32 secret. A code is accepted for the step before, the current one and the one
 * after (one step of clock drift either way), and only for a step after the last one accepted,
 * so no code is accepted twice.
 */
export const TOTP_PERIOD_SECONDS = 30
export const TOTP_DIGITS = 6
const SECRET_BYTES = 20

export const newTotpSecret = (): string => generateSecret({ length: SECRET_BYTES })

/** The `otpauth://totp/…` address an app scans: issuer and account named, parameters spelled out. */
export function totpAddress(secret: string, issuer: string, account: string): string {
  // The library leaves out parameters that equal the defaults; some apps want them spelled out.
  const address = generateURI({ issuer, label: account, secret })
  return `${address}&algorithm=SHA1&digits=${TOTP_DIGITS}&period=${TOTP_PERIOD_SECONDS}`
}

/** The step the code belongs to, when it is right now (within a step either way) and later than `afterStep`; else null. */
export function acceptedTotpStep(secret: string, code: string, now: Date, afterStep: number | null): number | null {
  const result = verifySync({
    secret,
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    period: TOTP_PERIOD_SECONDS,
    digits: TOTP_DIGITS,
    algorithm: 'sha1',
    epochTolerance: TOTP_PERIOD_SECONDS,
    ...(afterStep !== null ? { afterTimeStep: afterStep } : {}),
  })
  return result.valid && 'timeStep' in result ? result.timeStep : null
}

/** The address as a QR code, a PNG data URL an `<img>` shows. */
export const qrCodeDataUrl = (text: string): Promise<string> => QRCode.toDataURL(text, { errorCorrectionLevel: 'M', margin: 2, width: 240 })
