import fs from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { root } from './web-build'

const axeSource = fs.readFileSync(path.join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8')

export interface Violation {
  id: string
  impact: string | null
  help: string
  targets: string[]
}

/**
 * Runs axe-core (WCAG 2.1 A and AA, colour contrast included) on the page as it is, or only on
 * an open menu or dialog (`within`: the rest of the page is then hidden from assistive
 * technology on purpose, which axe would report about the background). Injected
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern.
 */
export async function axeViolations(page: Page, within?: string): Promise<Violation[]> {
  const found = await runAxe(page, within)
  if (found.length === 0) return found
  // A theme or size has just changed: colours computed in the frame of the change can be stale.
  // What is really wrong is still wrong a moment later; only that is reported.
  await page.waitForTimeout(400)
  return runAxe(page, within)
}

async function runAxe(page: Page, within?: string): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource)
  return page.evaluate(async (selector) => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: object) => Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe
    const context = selector ? { include: [selector] } : document
    const result = await axe.run(context, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }))
  }, within)
}

/** Whether anything makes the page scroll sideways. */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
}
