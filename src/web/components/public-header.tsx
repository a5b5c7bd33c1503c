import { LanguageChooser } from './language-chooser'

/** The top of every signed-out page: the language choice. */
export function PublicHeader() {
  return (
    <>
      <span />
      <LanguageChooser />
    </>
  )
}
