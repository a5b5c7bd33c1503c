import { generateSync } from 'otplib'
import { callApi, signInThroughApi } from './accounts'
import type { RunningServer } from './server'

/** The code an authenticator app with this key shows, `offsetSeconds` from now (the server runs on the real clock). */
export const appCode = (secret: string, offsetSeconds = 0): string => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSeconds })

/** Turns two-factor on for an account through the API, as the security section would: its key and recovery codes. */
export async function turnOnTwoFactor(
  server: Pick<RunningServer, 'url'>,
  account: { email: string; password: string },
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const session = await signInThroughApi(server, account.email, account.password)
  const setup = await callApi<{ secret: string }>(server, 'POST', '/auth/mfa/totp/setup', { body: { password: account.password }, session })
  if (setup.status !== 200) throw new Error(`two-factor setup failed: ${setup.status} ${setup.body.message}`)
  const { secret } = setup.body.data
  const enabled = await callApi<{ recoveryCodes: string[] }>(server, 'POST', '/auth/mfa/totp/enable', { body: { code: appCode(secret) }, session })
  if (enabled.status !== 200) throw new Error(`turning two-factor on failed: ${enabled.status} ${enabled.body.message}`)
  return { secret, recoveryCodes: enabled.body.data.recoveryCodes }
}
