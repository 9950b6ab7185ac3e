import { UnauthorizedError } from '#domain/errors.ts';

const BEARER = /^bearer (\S+)$/i;

/** The key in `Authorization: Bearer <key>` (scheme case-insensitive); anything else is a 401. */
export function bearerToken(authorization: string | undefined): string {
  if (!authorization) throw new UnauthorizedError('Missing API key: send "Authorization: Bearer <key>".');
  const token = BEARER.exec(authorization)?.[1];
  if (!token) throw new UnauthorizedError('Invalid API key: expected "Authorization: Bearer ppk_...".');
  return token;
}
