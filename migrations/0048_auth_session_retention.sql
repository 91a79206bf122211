-- Ended login sessions are deleted with their refresh tokens 7 days after they ended (SessionRetention,
-- src/infra/auth/SessionRetention.ts); nothing deleted them before, and a session gains a token every
-- refresh (about every 14 minutes while the app is open).
-- Every deleted token is checked against `successor_id` (the self-reference of the rotation chain):
-- without an index that is a scan of the whole table per token (2,000 tokens of a 200,000-token table
-- took 58 s to delete, 47 ms with the index).
CREATE INDEX refresh_tokens_successor_idx ON refresh_tokens (successor_id);
-- Whether a session still has a token unexpired at the cutoff is one index probe, not a read of all
-- its tokens; it still serves the cascade from auth_sessions (session_id leads).
CREATE INDEX refresh_tokens_session_expiry_idx ON refresh_tokens (session_id, expires_at);
DROP INDEX refresh_tokens_session_idx;
