import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from './errors.ts';
import { type Params, parseForm } from './form.ts';

// HTTP in and out: bodies read with a cap, JSON replies as Stripe sends them, and the pages'
// HTML and plain-text answers.

const MAX_BODY_BYTES = 1024 * 1024;

export interface Reply {
  status: number;
  body: unknown;
}

export function headerMap(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

export async function readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size <= MAX_BODY_BYTES) chunks.push(buffer);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > MAX_BODY_BYTES };
}

export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body, null, 2);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-cache, no-store',
    ...headers,
  });
  res.end(payload);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  send(
    res,
    error.status,
    { error: error.body },
    error.status === 401 ? { 'www-authenticate': 'Bearer realm="Stripe"' } : {},
  );
}

export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A page's HTML, its title also its heading. */
export const htmlPage = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title></head>
<body>
<h1>${title}</h1>
${body}
</body>
</html>
`;

/** A page to a GET, or its headers alone to a HEAD. */
export function sendPage(req: IncomingMessage, res: ServerResponse, page: () => string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(req.method === 'HEAD' ? undefined : page());
}

export function sendText(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(body);
}

/** A page's posted form, or undefined when it is malformed. */
export function postedForm(text: string): Params | undefined {
  try {
    return parseForm(text);
  } catch {
    return undefined;
  }
}
