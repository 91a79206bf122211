import { Context, type Effect } from "effect"
import type { TenderMatch } from "../../domain/scoring/MatchEvent.js"

/**
 * Where the matches of a scoring write go, inside its transaction: scoring says what it matched and
 * the capabilities that act on matches (alerts, webhooks) write their own rows. Composed where the
 * capabilities meet (infra/Repositories), so scoring imports neither.
 */
export class MatchSink extends Context.Tag("MatchSink")<
  MatchSink,
  {
    readonly record: (
      matches: ReadonlyArray<TenderMatch>
    ) => Effect.Effect<{ readonly alerts: number; readonly events: number }>
  }
>() {}
