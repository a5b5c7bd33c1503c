import { Brand } from './brand'
import { LanguageChooser } from './language-chooser'

/** The top of every signed-out page: the product's name and mark, and the language choice. */
export function PublicHeader() {
  return (
    <>
      <Brand />
      <LanguageChooser />
    </>
  )
}
