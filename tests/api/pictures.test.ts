import crypto from 'node:crypto'
import sharp from 'sharp'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp, type SignedIn } from '../support/test-app'
import { dataUrl, gifImage, gifScriptPolyglot, htmlPage, jpegWithGps, jpegWithHtmlComment, pngDeclaring, pngImage, svgImage, webpImage } from './helpers/images'
import { as, countWhere, expectFailure, expectSuccess } from './helpers/requests'

const INVALID = 'Please select a valid image file'
const TOO_LARGE = 'Image size must be less than 5MB'

describe('profile pictures', () => {
  const t = useTestApp()
  let user: SignedIn
  beforeAll(async () => {
    user = await t.signIn({ name: 'Picture Person' })
  })

  const upload = (profilePicture: unknown, who: SignedIn = user) => as(t, who).post('/api/users/profile-picture', { profilePicture })
  const fetchPicture = (url: string) => t.request('GET', url)

  it('accepts a PNG, re-encodes it to a small square WebP and serves it without sign-in, cached for good', async () => {
    const body = expectSuccess(await upload(dataUrl(await pngImage())))
    expect(body.message).toBe('Profile picture updated successfully')
    const url: string = body.data.profilePicture
    expect(url).toMatch(/^\/api\/users\/pictures\/[A-Za-z0-9_-]{22}\.webp$/)

    const served = await fetchPicture(url)
    expect(served.statusCode).toBe(200)
    expect(served.headers['content-type']).toBe('image/webp')
    expect(served.headers['x-content-type-options']).toBe('nosniff')
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    const image = await sharp(served.rawPayload).metadata()
    expect(image).toMatchObject({ format: 'webp', width: 256, height: 256 })

    expect((await as(t, user).get('/api/users/profile')).json().data.profilePicture).toBe(url)
    const entry = await t.ctx.db.selectFrom('activities').selectAll().where('user_id', '=', user.id).orderBy('id', 'desc').executeTakeFirstOrThrow()
    expect(entry).toMatchObject({ kind: 'updated', activity: 'Updated profile picture' })
  })

  it('strips EXIF and GPS from a camera JPEG', async () => {
    const original = await jpegWithGps()
    const before = await sharp(original).metadata()
    expect(before.exif?.length).toBeGreaterThan(0)

    const body = expectSuccess(await upload(dataUrl(original, 'image/jpeg')))
    const served = await fetchPicture(body.data.profilePicture)
    const after = await sharp(served.rawPayload).metadata()
    expect(after.format).toBe('webp')
    expect(after.exif).toBeUndefined()
    expect(after.xmp).toBeUndefined()
    expect(after.icc).toBeUndefined()
    const stored = await t.ctx.db.selectFrom('pictures').select('data').where('user_id', '=', user.id).executeTakeFirstOrThrow()
    for (const marker of ['Exif', 'GPS', 'PhoneMaker', 'Private Person']) expect(stored.data.includes(marker)).toBe(false)
  })

  it('judges by content, not by the declared type, and takes WebP and GIF too', async () => {
    expectSuccess(await upload(dataUrl(await pngImage(), 'image/gif')))
    expectSuccess(await upload(dataUrl(await webpImage(), 'image/webp')))
    expectSuccess(await upload(dataUrl(await gifImage(), 'image/gif')))
  })

  it('gives a new address to a new picture; the old one stops working', async () => {
    const first = expectSuccess(await upload(dataUrl(await pngImage(30, 30)))).data.profilePicture
    const second = expectSuccess(await upload(dataUrl(await pngImage(50, 40)))).data.profilePicture
    expect(second).not.toBe(first)
    expect((await fetchPicture(second)).statusCode).toBe(200)
    expect((await fetchPicture(first)).statusCode).toBe(404)
    expect(await countWhere(t, 'pictures', { user_id: user.id })).toBe(1)
  })

  it.each([
    ['an SVG', () => dataUrl(svgImage(), 'image/svg+xml')],
    ['an SVG declared as PNG', () => dataUrl(svgImage(), 'image/png')],
    ['an HTML page', () => dataUrl(htmlPage(), 'image/png')],
    ['a PNG header followed by garbage', async () => dataUrl(Buffer.concat([(await pngImage()).subarray(0, 33), crypto.randomBytes(2000)]))],
    [
      'a truncated PNG',
      async () => {
        const png = await pngImage()
        return dataUrl(png.subarray(0, png.length - 20))
      },
    ],
    ['a PNG with a script appended', async () => dataUrl(Buffer.concat([await pngImage(), Buffer.from('<script>alert(1)</script>')]))],
    ['a JPEG carrying an HTML page', async () => dataUrl(await jpegWithHtmlComment(), 'image/jpeg')],
    ['a GIF/JavaScript polyglot', () => dataUrl(gifScriptPolyglot(), 'image/gif')],
    ['random bytes', () => dataUrl(crypto.randomBytes(3000))],
    ['broken base64', () => 'data:image/png;base64,iVBORw0KGgo@@@notbase64!!'],
    ['base64 with a bad length', () => 'data:image/png;base64,iVBORw0KGgoA'],
    ['an http:// URL', () => 'http://127.0.0.1:9/picture.png'],
    ['an https:// URL', () => 'https://example.com/picture.png'],
    ['a file URL', () => 'file:///etc/passwd'],
    ['a data URL of another type', async () => dataUrl(await pngImage(), 'text/html')],
    ['a data URL without base64', () => 'data:image/png,notencoded'],
    ['an empty data URL', () => 'data:image/png;base64,'],
    ['an empty string', () => ''],
  ])('refuses %s', async (_what, make) => {
    const before = (await as(t, user).get('/api/users/profile')).json().data.profilePicture
    expectFailure(await upload(await make()), 400, INVALID)
    expect((await as(t, user).get('/api/users/profile')).json().data.profilePicture).toBe(before)
  })

  it('refuses a picture that is not a string', async () => {
    expectFailure(await upload(12345), 400, INVALID)
    expectFailure(await upload({ url: 'x' }), 400)
  })

  it('refuses a tiny file declaring 50,000 × 50,000 pixels, before decoding it', async () => {
    const bomb = pngDeclaring(50_000, 50_000)
    expect(bomb.length).toBeLessThan(200)
    const started = performance.now()
    expectFailure(await upload(dataUrl(bomb)), 400, INVALID)
    expect(performance.now() - started).toBeLessThan(2_000)
  })

  it('refuses a picture over 5 MB with the size message, not a 413', async () => {
    const big = Buffer.concat([await pngImage(), crypto.randomBytes(6 * 1024 * 1024)])
    expectFailure(await upload(dataUrl(big)), 400, TOO_LARGE)
    const justOver = Buffer.alloc(5 * 1024 * 1024 + 1, 1)
    expectFailure(await upload(dataUrl(justOver)), 400, TOO_LARGE)
  })

  it('still answers a 413 for bodies far beyond any picture', async () => {
    const response = await t.request('POST', '/api/users/profile-picture', {
      token: user.accessToken,
      csrf: user.csrfToken,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ profilePicture: 'data:image/png;base64,' + 'A'.repeat(11 * 1024 * 1024) }),
    })
    expectFailure(response, 413)
  })

  it('needs a signed-in user and the CSRF token to upload', async () => {
    const picture = dataUrl(await pngImage())
    expectFailure(await t.request('POST', '/api/users/profile-picture', { body: { profilePicture: picture } }), 401)
    expectFailure(await t.request('POST', '/api/users/profile-picture', { token: user.accessToken, body: { profilePicture: picture } }), 403)
  })

  it('serves nothing for unknown or malformed picture addresses', async () => {
    for (const file of ['AAAAAAAAAAAAAAAAAAAAAA.webp', 'x', '..%2F..%2Fetc%2Fpasswd', `${'a'.repeat(22)}.svg`]) {
      const response = await fetchPicture(`/api/users/pictures/${file}`)
      expect(response.statusCode).toBe(404)
      expect(response.headers['cache-control']).toBe('no-store')
    }
  })

  it("keeps each user's picture apart", async () => {
    const other = await t.signIn({ name: 'Other Person' })
    const mine = expectSuccess(await upload(dataUrl(await pngImage(20, 20)))).data.profilePicture
    const theirs = expectSuccess(await upload(dataUrl(await pngImage(21, 21)), other)).data.profilePicture
    expect(mine).not.toBe(theirs)
    expect((await fetchPicture(mine)).statusCode).toBe(200)
    expect((await fetchPicture(theirs)).statusCode).toBe(200)
  })
})
