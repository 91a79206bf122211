import { type BuildOptions, build } from "esbuild"

/**
 * esbuild as `npm run api` bundles the service (src/bin/launch.mjs): ESM for node 20, the Effect
 * packages inside (tree-shaken), every other package left external.
 */
export const bundleLikeTheService = (
  options: Pick<BuildOptions, "entryPoints" | "outfile" | "outdir" | "outExtension">
) =>
  build({
    ...options,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    mainFields: ["module", "main"],
    logLevel: "error",
    plugins: [
      {
        name: "only-effect-bundled",
        setup: (b) => {
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            /^(effect|@effect\/[^/]+)(\/|$)/.test(args.path) || args.kind === "entry-point"
              ? undefined
              : { path: args.path, external: true }
          )
        }
      }
    ]
  })
