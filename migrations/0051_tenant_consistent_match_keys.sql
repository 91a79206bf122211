-- A row's tenant checked against the company and watchlist it names. The tenant keys of watchlists,
-- alerts and match events checked the tenant on its own, so a row could name one tenant and another
-- tenant's company or watchlist (no code writes such a row; now the database refuses one too). Each
-- tenant key becomes part of a composite key:
--   watchlists   (company_id, tenant_id)   -> companies  (id, tenant_id)
--   alerts       (company_id, tenant_id)   -> companies  (id, tenant_id)
--                (watchlist_id, tenant_id) -> watchlists (id, tenant_id)
--   match_events (company_id, tenant_id)   -> companies  (id, tenant_id)
-- which is also one probe a row less for the alerts and events a scoring write inserts by the
-- thousand (BENCHMARKS.md, "Alerts' and events' keys"). An alert keeps its company key beside its
-- watchlist's: a watchlist may move to another company of the tenant, and its alerts stay the
-- company's they were for. The cascades are the same: a tenant's deletion removes its companies
-- (companies_tenant_id_fkey), a company's its watchlists, alerts and events, a watchlist's its alerts.
-- The probes lock the same rows the single keys did, so a company or watchlist deleted while a
-- scoring write holds its rows waits for it, as before. The tender keys stay.
ALTER TABLE companies ADD CONSTRAINT companies_id_tenant_key UNIQUE (id, tenant_id);
ALTER TABLE watchlists ADD CONSTRAINT watchlists_id_tenant_key UNIQUE (id, tenant_id);

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
