import os from 'node:os'
import pLimit from 'p-limit'
import sharp from 'sharp'
import { serviceUnavailable } from '~server/http/errors'
import { invalidPicture, type UploadedPicture } from './read-picture'

/**
 * Re-encodes an uploaded picture into the only form ever stored and served: a 256×256 WebP with
 * no metadata (sharp writes none unless asked, so EXIF, GPS, XMP and ICC data are all dropped;
 * the EXIF orientation is applied first). Decoding is bounded three ways: the pixel count
 * declared in the header is checked before any pixel is decoded, at most one picture per core
 * is decoded at a time (the rest wait in a short queue, then get a 503), and each job has a
 * time limit.
 */
export const PICTURE_SIZE = 256
/** About 40 megapixels: any phone camera's photo, nowhere near a decompression bomb. */
export const PICTURE_MAX_PIXELS = 40_000_000
export const PICTURE_CONTENT_TYPE = 'image/webp'

const MAX_WAITING = 32
const limit = pLimit(Math.max(1, Math.floor(os.availableParallelism() / 2)))
sharp.cache(false)

export function encodePicture(picture: UploadedPicture): Promise<Buffer> {
  if (limit.pendingCount >= MAX_WAITING) {
    return Promise.reject(serviceUnavailable('The server is busy. Please try again in a moment.'))
  }
  return limit(() => reencode(picture))
}

async function reencode(picture: UploadedPicture): Promise<Buffer> {
  const input = () => sharp(picture.bytes, { limitInputPixels: PICTURE_MAX_PIXELS, failOn: 'error', pages: 1 })
  try {
    // Reads the header only: dimensions are checked before decoding.
    const header = await input().metadata()
    if (header.format !== picture.format) throw invalidPicture()
    if (!header.width || !header.height || header.width * header.height > PICTURE_MAX_PIXELS) throw invalidPicture()
    return await input().timeout({ seconds: 10 }).rotate().resize(PICTURE_SIZE, PICTURE_SIZE, { fit: 'cover' }).webp({ quality: 82, effort: 4 }).toBuffer()
  } catch (error) {
    if (error instanceof Error && 'statusCode' in error) throw error
    throw invalidPicture()
  }
}
