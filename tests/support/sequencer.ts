import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The order in which `npm test` starts its files (docs/decisions/0013). Vitest's own order runs the
 * projects one after another by name (api, e2e, system, web), so the longest file of all, the
 * accessibility journey through every screen (four to six minutes), began only after the API suite,
 * and one core sat idle at the end while it finished. Here the projects whose files take longest
 * come first: the browser journeys, the whole-process tests, then the short API and web files,
 * which fill both cores to the end. Within a project Vitest's order stands (the slowest or largest
 * files first). A project of a later `sequence.groupOrder` still runs after the others.
 */
const LONGEST_FIRST = ['e2e', 'system', 'api-memory', 'api', 'web']

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FIRST.indexOf(file.project.name)
      return index === -1 ? LONGEST_FIRST.length : index
    }
    // Array sorting is stable: Vitest's order holds within a project.
    return (await super.sort(files)).sort((a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b))
  }
}
