import type { FastifyServerOptions } from 'fastify'

/**
 * Logger settings. No header is ever logged, and one-time tokens are cut out of URLs, both in
 * API paths (/verify-email/<token>) and in page addresses (?token=...).
 */
export function redactUrl(url: string): string {
  return url
    .replace(/\/(verify-email|reset-password)\/[^/?#]+/g, '/$1/[redacted]')
    .replace(/([?&](?:token|refreshToken|accessToken|password)=)[^&#]*/gi, '$1[redacted]')
}

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: {
      paths: ['req.headers', 'headers.authorization', 'headers.cookie', '*.password', '*.refreshToken', '*.accessToken'],
      censor: '[redacted]',
    },
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip }
      },
      res(reply: { statusCode: number }) {
        return { statusCode: reply.statusCode }
      },
    },
  }
}
