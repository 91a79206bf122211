/** Types of scripts/build-web.mjs for the TypeScript callers (test global setup, benchmarks). */
export declare const WEB_OUT_DIR: string
export declare const buildWeb: (options?: {
  readonly force?: boolean
  readonly log?: (line: string) => void
}) => Promise<{ readonly built: boolean; readonly script: string; readonly style: string }>
