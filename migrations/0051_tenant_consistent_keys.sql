-- A row's tenant checked against the company, watchlist or webhook it names. The tenant keys of the
-- tables below checked the tenant on its own, so a row could name one tenant and another tenant's
-- company, watchlist or webhook (no code writes such a row; now the database refuses one too). Each
-- tenant key becomes part of a composite key:
--   watchlists         (company_id, tenant_id)   -> companies  (id, tenant_id)
--   alerts             (company_id, tenant_id)   -> companies  (id, tenant_id)
--                      (watchlist_id, tenant_id) -> watchlists (id, tenant_id)
--   match_events       (company_id, tenant_id)   -> companies  (id, tenant_id)
--   tender_feedback    (company_id, tenant_id)   -> companies  (id, tenant_id)
--   report_jobs        (company_id, tenant_id)   -> companies  (id, tenant_id)
--   webhook_deliveries (webhook_id, tenant_id)   -> webhooks   (id, tenant_id)
-- which is also one probe a row less for the alerts and events a scoring write inserts by the
-- thousand (BENCHMARKS.md, "a tender's words as bits, and the alerts' and events' keys"). An alert
-- keeps its company key beside its watchlist's: a watchlist may move to another company of the
-- tenant, and its alerts stay the company's they were for. The cascades are the same: a tenant's
-- deletion removes its companies (companies_tenant_id_fkey) and webhooks, a company's its watchlists,
-- alerts, events, marks and reports, a watchlist's its alerts, a webhook's its deliveries. The probes
-- lock the same rows the single keys did (the company's, the watchlist's, the webhook's), so one
-- deleted while a scoring write holds its rows waits for it, as before. The tender keys stay.
ALTER TABLE companies ADD CONSTRAINT companies_id_tenant_key UNIQUE (id, tenant_id);
ALTER TABLE watchlists ADD CONSTRAINT watchlists_id_tenant_key UNIQUE (id, tenant_id);
ALTER TABLE webhooks ADD CONSTRAINT webhooks_id_tenant_key UNIQUE (id, tenant_id);

ALTER TABLE watchlists
  DROP CONSTRAINT watchlists_company_id_fkey,
  DROP CONSTRAINT watchlists_tenant_id_fkey,
  ADD CONSTRAINT watchlists_company_fkey FOREIGN KEY (company_id, tenant_id)
    REFERENCES companies (id, tenant_id) ON DELETE CASCADE;

ALTER TABLE alerts
  DROP CONSTRAINT alerts_company_id_fkey1,
  DROP CONSTRAINT alerts_tenant_id_fkey1,
  DROP CONSTRAINT alerts_watchlist_id_fkey1,
  ADD CONSTRAINT alerts_company_fkey FOREIGN KEY (company_id, tenant_id)
    REFERENCES companies (id, tenant_id) ON DELETE CASCADE,
  ADD CONSTRAINT alerts_watchlist_fkey FOREIGN KEY (watchlist_id, tenant_id)
    REFERENCES watchlists (id, tenant_id) ON DELETE CASCADE;

ALTER TABLE match_events
  DROP CONSTRAINT match_events_company_id_fkey1,
  DROP CONSTRAINT match_events_tenant_id_fkey1,
  ADD CONSTRAINT match_events_company_fkey FOREIGN KEY (company_id, tenant_id)
    REFERENCES companies (id, tenant_id) ON DELETE CASCADE;

ALTER TABLE tender_feedback
  DROP CONSTRAINT tender_feedback_company_id_fkey,
  DROP CONSTRAINT tender_feedback_tenant_id_fkey,
  ADD CONSTRAINT tender_feedback_company_fkey FOREIGN KEY (company_id, tenant_id)
    REFERENCES companies (id, tenant_id) ON DELETE CASCADE;

ALTER TABLE report_jobs
  DROP CONSTRAINT report_jobs_company_id_fkey,
  DROP CONSTRAINT report_jobs_tenant_id_fkey,
  ADD CONSTRAINT report_jobs_company_fkey FOREIGN KEY (company_id, tenant_id)
    REFERENCES companies (id, tenant_id) ON DELETE CASCADE;

ALTER TABLE webhook_deliveries
  DROP CONSTRAINT webhook_deliveries_webhook_id_fkey,
  DROP CONSTRAINT webhook_deliveries_tenant_id_fkey,
  ADD CONSTRAINT webhook_deliveries_webhook_fkey FOREIGN KEY (webhook_id, tenant_id)
    REFERENCES webhooks (id, tenant_id) ON DELETE CASCADE;
