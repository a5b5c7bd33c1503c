import { PICTURE_MAX_BYTES } from '~shared/constants'
import { pictureMessages } from '~shared/schemas/profile'

/** The picture checks made before uploading: an image, under 5 MB. */
export function pictureProblem(file: Pick<File, 'type' | 'size'>): string | null {
  if (!file.type.startsWith('image/')) return pictureMessages.type
  if (file.size >= PICTURE_MAX_BYTES) return pictureMessages.size
  return null
}

/** The file as a data URL; rejects with the product's message when it cannot be read. */
export function readAsDataUrl(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => (typeof reader.result === 'string' ? resolve(reader.result) : reject(new Error(pictureMessages.read)))
    reader.onerror = () => reject(new Error(pictureMessages.read))
    reader.readAsDataURL(file)
  })
}
