import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '~server/app'
import { ConfigError, loadConfig } from '~server/config/env'
import { useTestApp } from '../support/test-app'

/** The page every app address gets, with the settings the web app reads from it at run time. */

const t = useTestApp()
let webDir: string
beforeAll(async () => {
  webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-web-'))
  fs.copyFileSync(path.resolve(import.meta.dirname, '..', '..', 'index.html'), path.join(webDir, 'index.html'))
})
afterAll(async () => {
  fs.rmSync(webDir, { recursive: true, force: true })
})

async function pageWith(supportEmail: string | undefined, appName = t.ctx.config.appName): Promise<string> {
  const app = await buildApp({ ...t.ctx, config: { ...t.ctx.config, supportEmail, appName } }, { webDir })
  try {
    const response = await app.inject({ method: 'GET', url: '/account-suspended' })
    expect(response.statusCode).toBe(200)
    return response.body
  } finally {
    await app.close()
  }
}

const supportMeta = (html: string) => [...html.matchAll(/<meta name="support-email" content="([^"]*)"/g)].map((m) => m[1])

describe('the support address', () => {
  it('is put in the page from SUPPORT_EMAIL, inside <head>', async () => {
    const html = await pageWith('help@acme.test')
    expect(supportMeta(html)).toEqual(['help@acme.test'])
    expect(html.indexOf('name="support-email"')).toBeLessThan(html.indexOf('</head>'))
  })

  it('is left out when SUPPORT_EMAIL is not set (the web app falls back to its default)', async () => {
    expect(supportMeta(await pageWith(undefined))).toEqual([])
  })

  it('is written as an attribute value, whatever it holds', async () => {
    const html = await pageWith('"><script>alert(1)</script>')
    expect(html).not.toContain('<script>alert(1)')
    expect(supportMeta(html)).toEqual(['&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;'])
  })

  it('must be an e-mail address', () => {
    expect(loadConfig({ SUPPORT_EMAIL: 'help@acme.test' }).supportEmail).toBe('help@acme.test')
    expect(loadConfig({}).supportEmail).toBeUndefined()
    expect(() => loadConfig({ SUPPORT_EMAIL: 'not an address' })).toThrow(ConfigError)
  })
})

describe("the product's name", () => {
  it('is the title and <meta name="application-name">, Accounts by default', async () => {
    const html = await pageWith(undefined)
    expect(html).toContain('<title>Accounts</title>')
    expect(html).toContain('<meta name="application-name" content="Accounts" />')
  })

  it('follows APP_NAME, written as text whatever it holds', async () => {
    const html = await pageWith(undefined, 'Acme & "Co"')
    expect(html).toContain('<title>Acme &amp; &quot;Co&quot;</title>')
    expect(html).toContain('<meta name="application-name" content="Acme &amp; &quot;Co&quot;" />')
    expect(html).toContain('<noscript>Acme &amp; &quot;Co&quot; needs JavaScript to run.</noscript>')
    expect(html.indexOf('name="application-name"')).toBeLessThan(html.indexOf('</head>'))
  })
})
