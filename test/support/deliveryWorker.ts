import { Layer } from "effect"
import { InfraLive, launch, MigrateOnStart, runProcess } from "../../src/bin/Main.js"
import { WebhookDeliveryFromEnv } from "../../src/workers/WebhookDispatcher.js"
import { TestWebhookTransport } from "./TestWebhookTransport.js"

/**
 * A worker process running the webhook-delivery actor over the test transport, which trusts the
 * certificate in WEBHOOK_TEST_CA (until the production transport is wired into src/bin/worker.ts).
 */
runProcess(
  launch(
    WebhookDeliveryFromEnv.pipe(
      Layer.provide(TestWebhookTransport([process.env.WEBHOOK_TEST_CA ?? ""])),
      Layer.provide(MigrateOnStart),
      Layer.provide(InfraLive)
    )
  )
)
