/** Every database a test run creates starts with this, so the run's teardown can find leftovers. */
export const TEST_DB_PREFIX = "tss_test_"

/** The same server URL with another database name. */
export const databaseUrl = (serverUrl: string, database: string) => {
  const url = new URL(serverUrl)
  url.pathname = `/${database}`
  return url.toString()
}
