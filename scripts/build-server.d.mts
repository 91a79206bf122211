/** Types of scripts/build-server.mjs for the TypeScript callers (test global setup). */
export declare const serverBundlePath: (name: string) => string
export declare const buildServerBundle: (name: string) => Promise<void>
