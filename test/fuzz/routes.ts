/**
 * The routes to fuzz, read from the OpenAPI document generated from `Api` (the same document the
 * service serves): every path and method, its path and query parameters with their schemas, its JSON
 * body schema and its security scheme. Nothing here names a route, so a route added to `Api` is
 * fuzzed without touching the fuzzer.
 */

export type JsonSchema = { readonly [key: string]: any }

export interface RouteParam {
  readonly name: string
  readonly in: "path" | "query"
  readonly required: boolean
  readonly schema: JsonSchema
}

export interface Route {
  readonly method: string
  /** The OpenAPI template, `/api/v1/watchlists/{id}`. */
  readonly template: string
  readonly params: ReadonlyArray<RouteParam>
  /** The request body's media type and schema, when the route takes one. */
  readonly body: { readonly contentType: string; readonly schema: JsonSchema } | undefined
  /** Security scheme names from the operation (`apiKey`, `accessToken`); empty for a public route. */
  readonly security: ReadonlyArray<string>
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

export const routesOf = (doc: { readonly paths: Record<string, Record<string, any>> }): ReadonlyArray<Route> =>
  Object.entries(doc.paths).flatMap(([template, item]) =>
    METHODS.filter((method) => item[method] !== undefined).map((method): Route => {
      const operation = item[method]
      const params = [...(item.parameters ?? []), ...(operation.parameters ?? [])]
        .filter((p: any) => p.in === "path" || p.in === "query")
        .map(
          (p: any): RouteParam => ({
            name: p.name,
            in: p.in,
            required: p.in === "path" || p.required === true,
            schema: p.schema ?? {}
          })
        )
      const content: Record<string, { schema?: JsonSchema }> = operation.requestBody?.content ?? {}
      const contentType =
        Object.keys(content).find((type) => type.startsWith("application/json")) ?? Object.keys(content)[0]
      return {
        method: method.toUpperCase(),
        template,
        params,
        body: contentType === undefined ? undefined : { contentType, schema: content[contentType]!.schema ?? {} },
        security: (operation.security ?? []).flatMap((requirement: Record<string, unknown>) => Object.keys(requirement))
      }
    })
  )

/** Resolves `$ref` into `#/components/schemas`, keeping the referring schema's own keywords on top. */
export const resolverOf =
  (components: Record<string, JsonSchema>) =>
  (schema: JsonSchema): JsonSchema => {
    let resolved = schema
    for (let hops = 0; typeof resolved.$ref === "string" && hops < 16; hops++) {
      const { $ref, ...rest } = resolved
      resolved = { ...components[($ref as string).split("/").pop()!], ...rest }
    }
    return resolved
  }
