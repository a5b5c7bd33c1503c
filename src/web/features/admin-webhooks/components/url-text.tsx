import { Fragment } from 'react'

/**
 * A long address that wraps where a reader expects: after its slashes, dots and query
 * separators (a line break opportunity, `<wbr>`, after each), never in the middle of a word.
 */
export function UrlText({ url }: { url: string }) {
  const parts = url.split(/(?<=[/?&=.#])/)
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {part}
          {index < parts.length - 1 ? <wbr /> : null}
        </Fragment>
      ))}
    </>
  )
}
