import type { MailTexts } from './types'

export const en: MailTexts = {
  greeting: 'Hello {{name}},',
  copyLink: 'Or copy this address into your browser:',
  templates: {
    'verify-email': {
      subject: 'Verify your email address',
      paragraphs: ['Thank you for registering with {{appName}}. Please confirm your email address to activate your account.'],
      action: 'Verify email address',
      after: ['This link expires in 24 hours. If you did not register, you can ignore this message.'],
    },
    'already-registered': {
      subject: 'Someone tried to register with your email address',
      paragraphs: [
        'Someone just tried to create an account with this email address, which already has an account.',
        'If it was you, sign in instead, or reset your password if you have forgotten it.',
      ],
      action: 'Sign in',
      after: ['Forgot your password? {{resetLink}}', 'If it was not you, no action is needed: your account is unchanged.'],
    },
    'reset-password': {
      subject: 'Reset your password',
      paragraphs: ['We received a request to reset the password of your account.'],
      action: 'Reset password',
      after: ['This link expires in 1 hour and can be used once. If you did not ask for it, ignore this message.'],
    },
    'password-changed': {
      subject: 'Your password was changed',
      paragraphs: ['The password of your account was just changed, and your other sessions were signed out.'],
      after: ['If you did not do this, reset your password now: {{resetLink}}'],
    },
    invitation: {
      subject: 'You are invited',
      paragraphs: ['{{invitedBy}} has created an account for you on {{appName}}. Choose your password to join.'],
      action: 'Accept invitation',
      after: ['This link expires in 7 days and can be used once. If you did not expect it, you can ignore this message.'],
    },
    'signed-out-by-admin': {
      subject: 'You were signed out of your account',
      paragraphs: ['An administrator signed your account out on every device. Sign in again to continue.'],
      after: ['If you think someone else knows your password, reset it now: {{resetLink}}'],
    },
    'two-factor-enabled': {
      subject: 'Two-factor authentication is on',
      paragraphs: [
        'Two-factor authentication was just turned on for your account: signing in now asks for a code from your authenticator app after your password.',
        'Keep your recovery codes somewhere safe: each one signs you in once if you lose your phone.',
      ],
      action: 'Review your security settings',
      after: ['If you did not do this, reset your password now: {{resetLink}}'],
    },
    'two-factor-disabled': {
      subject: 'Two-factor authentication is off',
      paragraphs: ['Two-factor authentication was just turned off for your account: signing in now asks only for your password.'],
      action: 'Review your security settings',
      after: ['If you did not do this, reset your password now and turn two-factor authentication on again: {{resetLink}}'],
    },
    'recovery-codes-replaced': {
      subject: 'New recovery codes for your account',
      paragraphs: ['A new set of recovery codes was just made for your account. The codes you had before no longer work.'],
      action: 'Review your security settings',
      after: ['If you did not do this, reset your password now: {{resetLink}}'],
    },
    'second-factors-reset-by-admin': {
      subject: 'Two-factor authentication and passkeys were reset',
      paragraphs: [
        'An administrator turned off two-factor authentication for your account and removed its passkeys, for example after a lost phone. Signing in now asks only for your password.',
        'You can turn two-factor authentication on again and add new passkeys in your security settings.',
      ],
      action: 'Review your security settings',
      after: ['If you did not ask for this, reset your password now: {{resetLink}}'],
    },
    'new-sign-in': {
      subject: 'New sign-in to your account',
      paragraphs: [
        'Your account was just signed in to from a browser and system it has not used in the last 90 days.',
        'Browser: {{browser}}',
        'System: {{os}}',
        'Address: {{ip}}',
        'Time: {{at}}',
      ],
      action: 'Review your signed-in devices',
      after: ['If this was you, no action is needed. If not, sign that device out in your profile and change your password.'],
    },
    'passkey-added': {
      subject: 'A passkey was added to your account',
      paragraphs: ['A passkey named "{{passkeyName}}" was just added to your account. It can now be used to sign in without a password.'],
      action: 'Review your passkeys',
      after: ['If you did not do this, remove the passkey from your profile and change your password.'],
    },
    'account-deleted': {
      subject: 'Your account was deleted',
      paragraphs: [
        'Your account {{email}} was deleted at your request, with everything it held: your profile and picture, your passkeys and two-factor settings, and the access you gave apps. Every device and app it was signed in to has been signed out.',
        'This is the last message you will receive from {{appName}} about this account. The activity log keeps its entries, no longer linked to any account.',
      ],
      after: ['If you did not ask for this, tell your administrator at once.'],
    },
    'webhook-disabled': {
      subject: 'A webhook was disabled',
      paragraphs: [
        'The webhook endpoint {{url}} failed every delivery for 5 days, so {{appName}} disabled it. Events are no longer sent to it; they stay in the events feed for 30 days.',
        'Fix the receiver, then enable the endpoint again under Administration, Webhooks: deliveries still waiting are sent again.',
      ],
      action: 'Open Webhooks',
    },
  },
}
