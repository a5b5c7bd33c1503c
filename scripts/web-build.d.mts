/** Types of scripts/web-build.mjs, for the browser tests' setup that builds the web app with it. */
export declare function webBuildDir(root: string): string
export type WebAppBuild = { built: boolean } | { unwritable: true } | { failed: number; output: string }
export declare function ensureWebApp(
  root: string,
  options?: { log?: (line: string) => void; stdio?: 'inherit' | 'pipe'; viteArgs?: string[]; env?: NodeJS.ProcessEnv },
): Promise<WebAppBuild>
