import { PICTURE_MAX_BYTES } from '~shared/constants'
import { pictureMessages } from '~shared/schemas/profile'
import { badRequest } from '~server/http/errors'

/**
 * Turns the uploaded `data:image/...;base64,...` string into checked bytes, before any decoder
 * sees them. The declared type is ignored; the content must be a PNG, JPEG, WebP or GIF by its
 * signature, structurally whole (no bytes after the image's end, which is where polyglots keep
 * their second format) and free of markup. Nothing here fetches anything: a URL is just not a
 * data URL.
 */
export type PictureFormat = 'png' | 'jpeg' | 'webp' | 'gif'

export interface UploadedPicture {
  format: PictureFormat
  bytes: Buffer
}

export const invalidPicture = () => badRequest(pictureMessages.type, 'INVALID_IMAGE')
export const pictureTooLarge = () => badRequest(pictureMessages.size, 'IMAGE_TOO_LARGE')

const DATA_URL_PREFIX = /^data:image\/[a-z0-9.+-]{1,40};base64,/i
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

export function readPictureDataUrl(value: string): UploadedPicture {
  const prefix = DATA_URL_PREFIX.exec(value)
  if (!prefix) throw invalidPicture()
  const payload = value.slice(prefix[0].length)
  // The size is known from the length alone: refuse before decoding anything.
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0
  const size = (payload.length / 4) * 3 - padding
  if (size > PICTURE_MAX_BYTES) throw pictureTooLarge()
  if (payload.length === 0 || payload.length % 4 !== 0 || !BASE64.test(payload)) throw invalidPicture()
  const bytes = Buffer.from(payload, 'base64')
  const format = formatOf(bytes)
  if (!format || !isWhole(format, bytes) || containsMarkup(bytes)) throw invalidPicture()
  return { format, bytes }
}

function formatOf(bytes: Buffer): PictureFormat | null {
  if (bytes.length < 16) return null
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png'
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg'
  if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'webp'
  const gif = bytes.toString('latin1', 0, 6)
  if (gif === 'GIF87a' || gif === 'GIF89a') return 'gif'
  return null
}

/** The file ends where its format says it ends: nothing hides behind the image. */
function isWhole(format: PictureFormat, bytes: Buffer): boolean {
  switch (format) {
    case 'png':
      return pngChunksEndAtIend(bytes)
    case 'jpeg':
      return bytes[bytes.length - 2] === 0xff && bytes[bytes.length - 1] === 0xd9
    case 'webp':
      return bytes.readUInt32LE(4) + 8 === bytes.length
    case 'gif':
      return bytes[bytes.length - 1] === 0x3b
  }
}

function pngChunksEndAtIend(bytes: Buffer): boolean {
  let offset = 8
  let first = true
  while (offset + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(offset)
    const type = bytes.toString('latin1', offset + 4, offset + 8)
    if (first && type !== 'IHDR') return false
    first = false
    const next = offset + 12 + length
    if (next > bytes.length) return false
    if (type === 'IEND') return next === bytes.length
    offset = next
  }
  return false
}

// Long enough that compressed image data does not contain them by chance.
const MARKUP = /<script|<!doctype|<html|<iframe|<object|<embed|<\?php|javascript:/i

function containsMarkup(bytes: Buffer): boolean {
  return MARKUP.test(bytes.toString('latin1'))
}
