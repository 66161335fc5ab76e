-- One event of a limit that protects accounts (PostgresRateLimitCounters.take): every
-- password check, sign-up and token call runs it once, on the primary (uploads twice: a
-- count and the bytes). 10,000 keys (client addresses) in one window; the limit is out of
-- reach, so every event is counted (the write path; a refusal writes nothing).
\set key random(1, 10000)
\set amount 1
INSERT INTO rate_limit_windows AS w (key, ends_at, count) VALUES (:key, :now::timestamptz + :window * interval '1 second', :amount)
ON CONFLICT (key) DO UPDATE
  SET ends_at = CASE WHEN w.ends_at <= :now THEN EXCLUDED.ends_at ELSE w.ends_at END,
      count = CASE WHEN w.ends_at <= :now THEN :amount ELSE w.count + :amount END
  WHERE w.ends_at <= :now OR w.count + :amount <= :limit;
