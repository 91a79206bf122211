-- The request that enqueued a job (its X-Request-Id) and, when tracing is on, the trace it belongs to
-- (W3C traceparent): the worker logs the job's outcome under the request id and makes its span a
-- child of the request's span.
ALTER TABLE jobs ADD COLUMN request_id text, ADD COLUMN traceparent text;
