import { Schema } from "effect"

/** The subscription plans, lowest first. */
export const Plan = Schema.Literal("free", "starter", "activ", "consultant")
export type Plan = typeof Plan.Type

export interface PlanRules {
  /** The key-authenticated API v1 (tenders, export, reports, webhooks). */
  readonly apiAccess: boolean
  /** Credits granted at the start of each calendar month (no carry-over). */
  readonly monthlyCredits: number
  /** Active watchlists per tenant (spec: "not shown"; our choice, documented in the README). */
  readonly watchlistLimit: number
  /** The multi-client workspace: several companies, the companies endpoints. */
  readonly multiClientWorkspace: boolean
}

export const planRules: Record<Plan, PlanRules> = {
  free: { apiAccess: false, monthlyCredits: 0, watchlistLimit: 1, multiClientWorkspace: false },
  starter: { apiAccess: false, monthlyCredits: 0, watchlistLimit: 5, multiClientWorkspace: false },
  activ: { apiAccess: false, monthlyCredits: 0, watchlistLimit: 20, multiClientWorkspace: false },
  consultant: { apiAccess: true, monthlyCredits: 1500, watchlistLimit: 100, multiClientWorkspace: true }
}

/** The plans with the key API and so webhooks (spec 1.1, 8.2), for checks written in SQL. */
export const apiAccessPlans: ReadonlyArray<Plan> = Plan.literals.filter((plan) => planRules[plan].apiAccess)
