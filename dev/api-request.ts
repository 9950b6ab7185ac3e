/** One API v1 call with a Bearer key and an optional JSON body, as a customer's script makes it. */
export async function apiRequest(
  url: string,
  key: string,
  method: string,
  body?: unknown,
): Promise<{ status: number; ok: boolean; text: string }> {
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, ok: response.ok, text: await response.text() };
}
