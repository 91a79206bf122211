-- The daily digest (src/infra/digest): a user may opt in to one e-mail a day at a Bucharest hour.
-- The hour is kept while the digest is off, so turning it back on restores the user's choice.
ALTER TABLE users
  ADD COLUMN digest_enabled boolean NOT NULL DEFAULT false,
  ADD COLUMN digest_hour    smallint NOT NULL DEFAULT 8 CHECK (digest_hour BETWEEN 0 AND 23);
CREATE INDEX users_digest_idx ON users (digest_hour) WHERE digest_enabled;

-- Messages may carry an HTML alternative beside their plain text (the digest does).
ALTER TABLE email_outbox ADD COLUMN body_html text;

-- One digest per user and Bucharest day: the primary key is what makes it exact when several
-- workers run the schedule at once (the row is inserted in the transaction that queues the e-mail).
-- `covered_to` is where the next digest's "new tenders" start; `email_id` is null when there was
-- nothing to report and no e-mail was sent.
CREATE TABLE digest_sends (
  user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  bucharest_date date NOT NULL,
  covered_from   timestamptz NOT NULL,
  covered_to     timestamptz NOT NULL,
  email_id       uuid REFERENCES email_outbox (id) ON DELETE SET NULL,
  PRIMARY KEY (user_id, bucharest_date)
);
