import zlib from 'node:zlib'
import sharp from 'sharp'

/** Pictures to upload: real ones made with sharp, and hand-made hostile ones. */

export const dataUrl = (bytes: Buffer, type = 'image/png') => `data:${type};base64,${bytes.toString('base64')}`

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })

export const pngImage = (width = 64, height = 48) => solid(width, height).png().toBuffer()
export const webpImage = () => solid(40, 40).webp().toBuffer()
export const gifImage = () => solid(30, 20).gif().toBuffer()

/** A camera JPEG: EXIF with the maker and GPS position of where it was taken. */
export const jpegWithGps = () =>
  solid(120, 80)
    .jpeg()
    .withExif({
      IFD0: { Make: 'PhoneMaker', Model: 'Phone 12', Copyright: 'Private Person' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2964/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 4017/100' },
    })
    .toBuffer()

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff
  for (const byte of bytes) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** A well-formed PNG of a few dozen bytes whose header declares width × height pixels. */
export function pngDeclaring(width: number, height: number): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', zlib.deflateSync(Buffer.alloc(64))),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

/** A JPEG whose comment segment carries an HTML page: an image and a web page at once. */
export async function jpegWithHtmlComment(): Promise<Buffer> {
  const jpeg = await solid(16, 16).jpeg().toBuffer()
  const html = Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>', 'latin1')
  const length = Buffer.alloc(2)
  length.writeUInt16BE(html.length + 2)
  return Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xfe]), length, html, jpeg.subarray(2)])
}

/** The classic GIF/JavaScript polyglot: a GIF header that is also a script. */
export const gifScriptPolyglot = () => Buffer.from('GIF89a/*\x00\x00\x00\x00*/=1;alert(document.domain);//\x3b', 'latin1')

export const svgImage = () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>')

export const htmlPage = () => Buffer.from('<!doctype html><html><body><img src=x onerror=alert(1)></body></html>')
