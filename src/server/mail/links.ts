/** Links put in e-mails. Always built from APP_URL: a forged Host header cannot redirect them. */
export function mailLinks(appUrl: string) {
  return {
    verifyEmail: (token: string, email: string) =>
      `${appUrl}/verify-email?token=${encodeURIComponent(token)}&email=${encodeURIComponent(email)}`,
    resetPassword: (token: string) => `${appUrl}/reset-password?token=${encodeURIComponent(token)}`,
    login: () => `${appUrl}/login`,
    forgotPassword: () => `${appUrl}/forgot-password`,
  }
}
