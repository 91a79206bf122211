import { connect } from "node:net"

/** For globalSetup (no vitest import here: it runs outside the test workers). */

const LOCAL_REDIS = "redis://127.0.0.1:6379"

/** Whether a Redis answers PING on 127.0.0.1:6379 within a second (globalSetup asks once per run). */
const localRedisAnswers = () =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: "127.0.0.1", port: 6379 })
    const done = (answer: boolean) => {
      socket.destroy()
      resolve(answer)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once("error", () => done(false))
    socket.once("connect", () => socket.write("PING\r\n"))
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")))
  })

/** For globalSetup: a real Redis where one is reachable, else "" (the in-process store). */
export const findTestRedis = async (): Promise<string> =>
  process.env.REDIS_URL ? process.env.REDIS_URL : (await localRedisAnswers()) ? LOCAL_REDIS : ""
