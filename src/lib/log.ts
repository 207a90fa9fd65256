import pino from 'pino';

export type Logger = pino.Logger;

/** JSON lines on stderr (stdout belongs to command output). Keys and tokens are redacted. */
export function createLogger(level: string, destination: NodeJS.WritableStream | number = 2): Logger {
  const stream = typeof destination === 'number' ? pino.destination({ fd: destination, sync: true }) : destination;
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', '*.password', '*.key', '*.token'],
        censor: '[redacted]',
      },
    },
    stream,
  );
}

/** Remove credentials from a URL before it is logged (`?key=`, `token=`, `code=`). */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:key|token|access_token|refresh_token|code|client_secret)=)[^&#]*/gi, '$1[redacted]');
}
