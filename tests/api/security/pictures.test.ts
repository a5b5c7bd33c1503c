import net from 'node:net'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp, type SignedIn } from '../../support/test-app'
import { dataUrl, gifImage, jpegWithGps, pngImage, webpImage } from '../helpers/images'
import { as } from '../helpers/requests'
import { quickSignIn } from '../helpers/users'

/**
 * Pictures (checklist: V5).
 *
 * Already proved elsewhere, and not repeated: SVG (also declared as PNG), an HTML page, a PNG
 * header followed by garbage, a truncated PNG, a PNG with a script appended, a JPEG carrying a
 * page in a comment, the GIF/JavaScript polyglot, broken base64, http://, https:// and file: URLs,
 * a PNG declaring 50,000 × 50,000 pixels, over 5 MB, EXIF and GPS stripped, formats judged by
 * content (tests/api/pictures.test.ts). Here: that no URL is ever fetched, bombs in the other three
 * formats, polyglots that hide no markup, and data URLs bent out of shape.
 */

const INVALID = 'Please select a valid image file'

const t = useTestApp()
let user: SignedIn
beforeAll(async () => {
  user = await quickSignIn(t, { name: 'Picture Attacker' })
})

const upload = (profilePicture: string) => as(t, user).post('/api/users/profile-picture', { profilePicture })

async function expectRefused(profilePicture: string, label: string) {
  const started = performance.now()
  const response = await upload(profilePicture)
  expect(response.statusCode, `${label}: ${response.body}`).toBe(400)
  expect(response.json().message, label).toBe(INVALID)
  // Refused without decoding: far quicker than a client would wait (no timing claim beyond "no hang").
  expect(performance.now() - started, label).toBeLessThan(5_000)
}

const u16le = (n: number) => Buffer.from([n & 255, (n >> 8) & 255])
const u16be = (n: number) => Buffer.from([(n >> 8) & 255, n & 255])
const u32le = (n: number) => {
  const bytes = Buffer.alloc(4)
  bytes.writeUInt32LE(n >>> 0)
  return bytes
}

/** A 35-byte GIF whose only frame declares width × height pixels. */
function gifDeclaring(width: number, height: number): Buffer {
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    u16le(width),
    u16le(height),
    Buffer.from([0x80, 0, 0, 0, 0, 0, 255, 255, 255, 0x2c]),
    u16le(0),
    u16le(0),
    u16le(width),
    u16le(height),
    Buffer.from([0, 2, 2, 0x4c, 0x01, 0, 0x3b]),
  ])
}

/** A JPEG of a few hundred bytes whose frame header declares width × height pixels. */
function jpegDeclaring(width: number, height: number): Buffer {
  const segment = (marker: number, data: Buffer) => Buffer.concat([Buffer.from([0xff, marker]), u16be(data.length + 2), data])
  const table = Buffer.from([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])),
    segment(0xc0, Buffer.concat([Buffer.from([8]), u16be(height), u16be(width), Buffer.from([1, 1, 0x11, 0])])),
    segment(0xc4, Buffer.concat([Buffer.from([0x00]), table])),
    segment(0xc4, Buffer.concat([Buffer.from([0x10]), table])),
    segment(0xda, Buffer.from([1, 1, 0, 0, 63, 0])),
    Buffer.from([0, 0, 0xff, 0xd9]),
  ])
}

/** A 36-byte lossless WebP whose header declares width × height pixels (16,383 at most). */
function webpDeclaring(width: number, height: number): Buffer {
  const data = Buffer.concat([Buffer.from([0x2f]), u32le((width - 1) | ((height - 1) << 14)), Buffer.alloc(11)])
  const body = Buffer.concat([Buffer.from('WEBPVP8L', 'latin1'), u32le(data.length), data])
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), u32le(body.length), body])
}

/** The start of a ZIP archive (a local file header): the second half of a picture/archive polyglot. */
const zipArchive = () =>
  Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.alloc(26), Buffer.from('payload.jar', 'latin1'), zlib.deflateRawSync(Buffer.from('class Payload {}'))])

function pngWithTextChunk(png: Buffer, text: string): Buffer {
  const data = Buffer.from(`Comment\u0000${text}`, 'latin1')
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const chunk = Buffer.concat([length, Buffer.from('tEXt', 'latin1'), data, Buffer.alloc(4)])
  // Inserted right after IHDR (8 + 25 bytes in).
  return Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)])
}

describe('the server never fetches what it is given', () => {
  let listener: net.Server
  let port = 0
  let connections = 0
  beforeAll(async () => {
    listener = net.createServer((socket) => {
      connections++
      socket.destroy()
    })
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
    port = (listener.address() as net.AddressInfo).port
  })
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())))

  it('refuses every URL, and nothing connects to the address it names', async () => {
    const here = `127.0.0.1:${port}`
    const svgFetching = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image href="http://${here}/a.png" xlink:href="http://${here}/b.png" width="10" height="10"/></svg>`
    const values = [
      `http://${here}/picture.png`,
      `https://${here}/picture.png`,
      `//${here}/picture.png`,
      `ftp://${here}/picture.png`,
      `HTTP://${here}/picture.png`,
      ` http://${here}/picture.png`,
      `data:image/png;base64,${Buffer.from(`http://${here}/picture.png`).toString('base64')}`,
      `data:image/svg+xml;base64,${Buffer.from(svgFetching).toString('base64')}`,
      `data:image/png;base64,${Buffer.from(svgFetching).toString('base64')}`,
      `url(http://${here}/picture.png)`,
    ]
    for (const value of values) await expectRefused(value, value.slice(0, 40))
    // Give any stray fetch the time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(connections).toBe(0)
  })
})

describe('a small file declaring an enormous image', () => {
  it.each([
    ['a GIF of 50,000 × 50,000', () => dataUrl(gifDeclaring(50_000, 50_000), 'image/gif')],
    ['a JPEG of 50,000 × 50,000', () => dataUrl(jpegDeclaring(50_000, 50_000), 'image/jpeg')],
    ['a WebP of 16,383 × 16,383', () => dataUrl(webpDeclaring(16_383, 16_383), 'image/webp')],
    ['a GIF of 7,000 × 7,000 (49 megapixels)', () => dataUrl(gifDeclaring(7_000, 7_000), 'image/gif')],
  ])('is refused before it is decoded: %s', async (label, make) => {
    const picture = make()
    expect(picture.length).toBeLessThan(1_000)
    await expectRefused(picture, label)
  })
})

describe('a picture with something hidden behind it or inside it', () => {
  it.each([
    ['a PNG with a ZIP archive appended', async () => dataUrl(Buffer.concat([await pngImage(), zipArchive()]))],
    ['a JPEG with a ZIP archive appended', async () => dataUrl(Buffer.concat([await jpegWithGps(), zipArchive()]), 'image/jpeg')],
    ['a GIF with bytes after its trailer', async () => dataUrl(Buffer.concat([await gifImage(), Buffer.from('tail')]), 'image/gif')],
    ['a WebP longer than its RIFF size', async () => dataUrl(Buffer.concat([await webpImage(), zipArchive()]), 'image/webp')],
    [
      'a WebP shorter than its RIFF size',
      async () => {
        const webp = await webpImage()
        return dataUrl(webp.subarray(0, webp.length - 4), 'image/webp')
      },
    ],
    ['a PNG whose text chunk holds a script', async () => dataUrl(pngWithTextChunk(await pngImage(), '<script>alert(1)</script>'))],
    ['a PNG whose text chunk holds PHP', async () => dataUrl(pngWithTextChunk(await pngImage(), '<?php system($_GET["c"]); ?>'))],
    [
      'a PNG with two IEND chunks',
      async () => {
        const png = await pngImage()
        return dataUrl(Buffer.concat([png, png.subarray(png.length - 12)]))
      },
    ],
  ])('is refused: %s', async (label, make) => {
    await expectRefused(await make(), label)
  })
})

describe('a data URL bent out of shape', () => {
  it('is refused in every form but the one the web app sends', async () => {
    const payload = (await pngImage(8, 8)).toString('base64')
    const refused = [
      `data:image/png;charset=utf-8;base64,${payload}`,
      `data:image/png;base64, ${payload}`,
      `data:image/png;base64,${payload.slice(0, 20)}\n${payload.slice(20)}`,
      `data:image/png;base64,${payload.replace(/\+/g, '-').replace(/\//g, '_')}x`,
      `data:image/${'p'.repeat(10_000)};base64,${payload}`,
      `data:text/html;base64,${payload}`,
      `data:;base64,${payload}`,
      `data:image/png;base64,${payload}====`,
      `javascript:alert(1)//data:image/png;base64,${payload}`,
      `data:image/png;base64,${payload}#fragment`,
    ]
    for (const value of refused) await expectRefused(value, value.slice(0, 50))
    const accepted = await upload(`data:image/png;base64,${payload}`)
    expect(accepted.statusCode, accepted.body).toBe(200)
  })
})
