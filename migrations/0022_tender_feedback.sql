-- Feedback (issue 21): a user marks a tender scored for a company relevant or not relevant. The
-- company's profile reads its marks on the next rescore (domain/scoring/Feedback.ts); removing the
-- mark (undo) deletes the row. One mark per (company, tender); the tenant is kept for isolation checks.
CREATE TABLE tender_feedback (
  company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  tender_id  uuid NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
  tenant_id  uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  relevant   boolean NOT NULL,
  marked_at  timestamptz NOT NULL,
  PRIMARY KEY (company_id, tender_id)
);
