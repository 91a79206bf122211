/** A small fetch wrapper for tests: JSON in, JSON (as `any`, for terse assertions) out. */
export interface TestResponse {
  readonly status: number
  readonly headers: Headers
  readonly body: any
  readonly text: string
}

export const request = async (
  url: string,
  options: {
    readonly method?: string
    readonly token?: string
    readonly body?: unknown
    readonly headers?: Record<string, string>
  } = {}
): Promise<TestResponse> => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  if (options.body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(url, {
    method: options.method ?? "GET",
    headers,
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) })
  })
  const text = await response.text()
  let body: any = text
  try {
    body = text === "" ? undefined : JSON.parse(text)
  } catch {}
  return { status: response.status, headers: response.headers, body, text }
}
