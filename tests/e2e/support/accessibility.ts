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
export async function axeViolations(page: Page, within?: string, only: 'all' | 'colours' = 'all'): Promise<Violation[]> {
  const found = await runAxe(page, within, only)
  if (found.length === 0) return found
  // A theme or size has just changed: colours computed in the frame of the change can be stale.
  // What is really wrong is still wrong a moment later; only that is reported.
  await page.waitForTimeout(400)
  return runAxe(page, within, only)
}

/**
 * The rules whose outcome depends on colours. A page in its second theme differs from the first
 * only in colours (the same elements, names, roles and layout), so it is checked by these alone.
 */
export const COLOUR_RULES = ['color-contrast', 'link-in-text-block']

async function runAxe(page: Page, within: string | undefined, only: 'all' | 'colours'): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource)
  return page.evaluate(
    async ({ selector, rules }) => {
      const axe = (
        window as unknown as {
          axe: {
            run: (
              context: unknown,
              options: object,
            ) => Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }> }>
          }
        }
      ).axe
      const context = selector ? { include: [selector] } : document
      const runOnly = rules ? { type: 'rule', values: rules } : { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }
      const result = await axe.run(context, { runOnly })
      return result.violations.map((violation) => ({
        id: violation.id,
        impact: violation.impact,
        help: violation.help,
        targets: violation.nodes.map((node) => node.target.join(' ')),
      }))
    },
    { selector: within, rules: only === 'colours' ? COLOUR_RULES : undefined },
  )
}

/** Whether anything makes the page scroll sideways. */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
}

/**
 * Words (and e-mail addresses, and the parts of hyphenated words) split over two lines although
 * they would fit: on a line of their own, or, for words up to 12rem wide, anywhere (a column
 * squeezed narrower than such a word is the fault, as in "Action/s"). Only a long word in a
 * column too narrow for it may break.
 */
export async function wordsBrokenAlthoughTheyFit(page: Page): Promise<string[]> {
  return page.evaluate((SHORT_WORD_PX) => {
    const found: string[] = []
    const canvas = document.createElement('canvas').getContext('2d')!
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement
      if (!parent || parent.closest('[aria-hidden="true"], .sr-only, script, style, option')) continue
      for (const word of (node.nodeValue ?? '').matchAll(/[^\s-]+-?/g)) {
        const range = document.createRange()
        range.setStart(node, word.index)
        range.setEnd(node, word.index + word[0].length)
        const lines = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)))
        if (lines.size < 2) continue
        const style = getComputedStyle(parent)
        canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`
        const width = canvas.measureText(word[0]).width
        let block: HTMLElement = parent
        while (block.parentElement && ['inline', 'contents'].includes(getComputedStyle(block).display)) block = block.parentElement
        const box = getComputedStyle(block)
        const line = block.clientWidth - parseFloat(box.paddingLeft) - parseFloat(box.paddingRight)
        if (width + 1 < line || width <= SHORT_WORD_PX) found.push(`"${word[0]}" (${Math.round(width)} px on a ${Math.round(line)} px line)`)
      }
    }
    return found
  }, 192)
}

/** Placeholders longer than their field: cut off. */
export async function cutPlaceholders(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const canvas = document.createElement('canvas').getContext('2d')!
    return [...document.querySelectorAll<HTMLInputElement>('input[placeholder]')].flatMap((input) => {
      if (input.value || input.getClientRects().length === 0) return []
      const style = getComputedStyle(input, '::placeholder')
      canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`
      const box = getComputedStyle(input)
      const room = input.clientWidth - parseFloat(box.paddingLeft) - parseFloat(box.paddingRight)
      return canvas.measureText(input.placeholder).width > room ? [`"${input.placeholder}"`] : []
    })
  })
}

/** The two sizes every screen is checked at: a desktop and a 360 px phone. */
export const SIZES = [
  { label: 'desktop', width: 1280, height: 800 },
  { label: 'phone', width: 360, height: 740 },
] as const

/** Switches the page's colour scheme and waits until the app has applied it. */
export async function useTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: theme })
  await page.waitForFunction((dark) => document.documentElement.classList.contains('dark') === dark, theme === 'dark')
}

/** No spinner left (unless the screen shows one on purpose), and the layout has settled for the current size. */
export async function settle(page: Page, keepSpinner = false): Promise<void> {
  if (!keepSpinner)
    await page
      .locator('.animate-spin')
      .first()
      .waitFor({ state: 'detached', timeout: 10_000 })
      .catch(() => undefined)
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
}

/** Words broken where they would fit (text squeezed into too narrow a column), placeholders cut off. */
export async function textProblems(page: Page): Promise<string[]> {
  const broken = await wordsBrokenAlthoughTheyFit(page)
  const cut = await cutPlaceholders(page)
  return [...(broken.length > 0 ? [`words broken although they fit: ${broken.join(', ')}`] : []), ...(cut.length > 0 ? [`placeholders cut off: ${cut.join(', ')}`] : [])]
}

/** What is wrong with the page as it is, at this size and in this theme: axe, sideways scrolling, broken words, cut placeholders. */
export async function problemsOf(page: Page, where: string, within?: string): Promise<string[]> {
  const problems: string[] = []
  const violations = await axeViolations(page, within)
  if (violations.length > 0) problems.push(`${where}: ${JSON.stringify(violations, null, 2)}`)
  const overflow = await horizontalOverflow(page)
  if (overflow > 0) problems.push(`${where}: scrolls sideways by ${overflow} px`)
  problems.push(...(await textProblems(page)).map((problem) => `${where}: ${problem}`))
  return problems
}

/** With SCREENSHOTS=1, where the accessibility suites write a screenshot of each screen they check, for a person to look at. */
const SHOTS = process.env.SCREENSHOTS === '1' ? path.join(root, 'test-results', 'screenshots') : null
if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true })

/** A full-page screenshot named `name` (.png), when SCREENSHOTS=1. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true })
}
