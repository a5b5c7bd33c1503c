import type { MailTemplate } from '~server/jobs/queue'

/**
 * The texts of the product's e-mails in one language. `{{name}}`, `{{appName}}` and the links a
 * message carries (`{{resetLink}}`, `{{loginLink}}`) are filled in when it is rendered
 * (`mail/templates.ts`); the action button's link is given by the template, not the text.
 */
export interface MailTexts {
  /** The first line, e.g. "Hello {{name}},". */
  greeting: string
  /** Under the action button in the HTML part, before the link written out. */
  copyLink: string
  /** One entry per e-mail: adding an e-mail without its texts in every language does not compile. */
  templates: Record<MailTemplate, TemplateTexts>
}

export interface TemplateTexts {
  /** Without the product's name: it is added after it (`Subject - APP_NAME`). */
  subject: string
  paragraphs: string[]
  /** The label of the action button (and of the link in the text part). */
  action?: string
  /** Paragraphs after the action. */
  after?: string[]
}
