-- One event of a limit that protects accounts (PostgresRateLimitCounters.take): every
-- password check, sign-up and token call runs it once, on the primary. 10,000 keys (client
-- addresses) in one window; the limit is out of reach, so every event is counted (the
-- write path; a refusal writes nothing).
\set key random(1, 10000)
INSERT INTO rate_limit_windows AS w (key, ends_at, count) VALUES (:key, :now::timestamptz + :window * interval '1 second', 1)
ON CONFLICT (key) DO UPDATE
  SET ends_at = CASE WHEN w.ends_at <= :now THEN EXCLUDED.ends_at ELSE w.ends_at END,
      count = CASE WHEN w.ends_at <= :now THEN 1 ELSE w.count + 1 END
  WHERE w.ends_at <= :now OR w.count < :limit;
