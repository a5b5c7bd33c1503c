import { escapeHtml } from '~server/escape-html'
import type { MailMessage } from '~server/jobs/queue'

/**
 * The product's e-mails, rendered from the messages queued as jobs (`jobs/queue.ts`). Each has a
 * plain-text and an HTML part; every link in them was built from APP_URL when the mail was
 * queued, never from the request's Host header.
 */

export interface RenderedMail {
  to: string
  subject: string
  text: string
  html: string
}

/** A paragraph as HTML: escaped, with the links it mentions made clickable. */
const paragraphHtml = (text: string) => `<p>${escapeHtml(text).replace(/https?:\/\/[^\s<>"']+/g, (url) => `<a href="${url}">${url}</a>`)}</p>`

interface Part {
  subject: string
  greeting: string
  paragraphs: string[]
  action?: { label: string; link: string }
  after?: string[]
}

function compose(to: string, part: Part): RenderedMail {
  const text = [
    part.greeting,
    '',
    ...part.paragraphs.flatMap((p) => [p, '']),
    ...(part.action ? [`${part.action.label}: ${part.action.link}`, ''] : []),
    ...(part.after ?? []).flatMap((p) => [p, '']),
    '-- Accounts',
  ].join('\n')
  const html = `<!doctype html>
<html><body style="font-family: system-ui, sans-serif; color: #1f2937; line-height: 1.5">
<p>${escapeHtml(part.greeting)}</p>
${part.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${
  part.action
    ? `<p><a href="${escapeHtml(part.action.link)}" style="display:inline-block;padding:10px 16px;background:#2563eb;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(part.action.label)}</a></p>
<p style="font-size:13px;color:#6b7280">Or copy this address into your browser: ${escapeHtml(part.action.link)}</p>`
    : ''
}
${(part.after ?? []).map(paragraphHtml).join('\n')}
<p style="color:#6b7280">-- Accounts</p>
</body></html>`
  return { to, subject: part.subject, text, html }
}

export function renderMail(message: MailMessage): RenderedMail {
  const greeting = `Hello ${message.name},`
  switch (message.template) {
    case 'verify-email':
      return compose(message.to, {
        subject: 'Verify your email address',
        greeting,
        paragraphs: ['Thank you for registering. Please confirm your email address to activate your account.'],
        action: { label: 'Verify email address', link: message.link },
        after: ['This link expires in 24 hours. If you did not register, you can ignore this message.'],
      })
    case 'already-registered':
      return compose(message.to, {
        subject: 'Someone tried to register with your email address',
        greeting,
        paragraphs: [
          'Someone just tried to create an account with this email address, which already has an account.',
          'If it was you, sign in instead, or reset your password if you have forgotten it.',
        ],
        action: { label: 'Sign in', link: message.loginLink },
        after: [`Forgot your password? ${message.resetLink}`, 'If it was not you, no action is needed: your account is unchanged.'],
      })
    case 'reset-password':
      return compose(message.to, {
        subject: 'Reset your password',
        greeting,
        paragraphs: ['We received a request to reset the password of your account.'],
        action: { label: 'Reset password', link: message.link },
        after: ['This link expires in 1 hour and can be used once. If you did not ask for it, ignore this message.'],
      })
    case 'password-changed':
      return compose(message.to, {
        subject: 'Your password was changed',
        greeting,
        paragraphs: ['The password of your account was just changed, and your other sessions were signed out.'],
        after: [`If you did not do this, reset your password now: ${message.resetLink}`],
      })
    case 'two-factor-enabled':
      return compose(message.to, {
        subject: 'Two-factor authentication is on',
        greeting,
        paragraphs: [
          'Two-factor authentication was just turned on for your account: signing in now asks for a code from your authenticator app after your password.',
          'Keep your recovery codes somewhere safe: each one signs you in once if you lose your phone.',
        ],
        action: { label: 'Review your security settings', link: message.profileLink },
        after: [`If you did not do this, reset your password now: ${message.resetLink}`],
      })
    case 'two-factor-disabled':
      return compose(message.to, {
        subject: 'Two-factor authentication is off',
        greeting,
        paragraphs: ['Two-factor authentication was just turned off for your account: signing in now asks only for your password.'],
        action: { label: 'Review your security settings', link: message.profileLink },
        after: [`If you did not do this, reset your password now and turn two-factor authentication on again: ${message.resetLink}`],
      })
    case 'recovery-codes-replaced':
      return compose(message.to, {
        subject: 'New recovery codes for your account',
        greeting,
        paragraphs: ['A new set of recovery codes was just made for your account. The codes you had before no longer work.'],
        action: { label: 'Review your security settings', link: message.profileLink },
        after: [`If you did not do this, reset your password now: ${message.resetLink}`],
      })
  }
}
