/** jsdom ships no types: what the tests use of it outside the web project (parsing a page or an XML document). */
declare module 'jsdom' {
  export class JSDOM {
    constructor(markup?: string, options?: { contentType?: string; url?: string })
    readonly window: Window & typeof globalThis
  }
}
