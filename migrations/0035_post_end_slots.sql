-- "Open now" without counting the day's closings one by one. open_post_counts (0016) took
-- the posts open at midnight (a counter) minus the posts that closed since, counted in the
-- posts_end index; the posts closing in a day grow with the data (~4.6 k at 1 M posts, ~46 k
-- at 10 M), so late in a day the category list counted them all on every request:
-- `/v1/categories` p99 64 ms at 1 M posts, 350 ms at 10 M (bench/scale, 2026-12-02).
--
-- Now the posts are also counted by the quarter hour their window ends in and category
-- (post_end_slots), kept exact by the same triggers as post_day_counts (0009). The closed
-- since midnight are the counted quarters that lie wholly inside [midnight, now) plus the
-- posts ending in the current, unfinished quarter (and, for a day start that is not on a
-- quarter, before its first one), still counted in the index: at most a quarter hour's
-- closings, ~1/96 of a day's. A quarter: the rows summed (96 a day per category) and the
-- posts counted (a quarter hour's) cost about the same at 10 M posts. At 1 M posts, 18:08 in
-- Korea (3,629 closed since midnight), side by side: `/v1/categories` 651/698 -> 1,056/1,033
-- rps, p99 122 -> 77-80 ms; its statement under pgbench 726 -> 1,218/1,307 tps. What it
-- reads no longer grows with the posts.
CREATE TABLE post_end_slots (
    slot        timestamptz NOT NULL,
    category_id text NOT NULL,
    ends        integer NOT NULL DEFAULT 0,
    -- Covering: a day's quarters are read from the index alone. Read from the rows (first
    -- inserted in a GROUP BY's hash order), 820 quarters cost 655 heap pages per request and
    -- made the first cut slower than counting posts at 1 M (722 against 951 rps).
    PRIMARY KEY (slot, category_id) INCLUDE (ends)
) WITH (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01);
-- Vacuumed often (a small table) so that the past quarters' pages stay all-visible and the
-- index-only scan reads no rows.

-- The quarter an instant lies in (its start), on quarters counted from the epoch: every
-- whole-quarter-hour time zone (Korea's among them) has its midnights on one.
CREATE FUNCTION end_slot(instant timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT date_bin(interval '15 minutes', instant, timestamptz '1970-01-01 00:00:00+00') $$;

-- Adds `sign` × each changed post (end and category, as parallel arrays), in key order so
-- concurrent writers lock rows in the same order (as post_day_counts_apply).
CREATE FUNCTION post_end_slots_apply(sign integer, changed_end timestamptz[], changed_category text[])
RETURNS void LANGUAGE sql AS $$
    INSERT INTO post_end_slots AS s (slot, category_id, ends)
    SELECT end_slot(t.e_at), t.category, sign * count(*)
    FROM unnest(changed_end, changed_category) AS t(e_at, category)
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (slot, category_id) DO UPDATE SET ends = s.ends + EXCLUDED.ends
$$;

-- Counts every post (here, and for loaders that write posts with triggers off, `seed bulk`),
-- in key order so that one quarter's rows share pages.
CREATE FUNCTION post_end_slots_rebuild() RETURNS void
LANGUAGE sql AS $$
    DELETE FROM post_end_slots;
    INSERT INTO post_end_slots (slot, category_id, ends)
    SELECT end_slot(group_buying_end), category_id, count(*) FROM posts GROUP BY 1, 2 ORDER BY 1, 2;
$$;
SELECT post_end_slots_rebuild();

-- The triggers of 0009 keep both counters: one trigger per statement, not two.
CREATE OR REPLACE FUNCTION posts_day_counts_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM post_day_counts_apply(1, array_agg(group_buying_start), array_agg(group_buying_end), array_agg(category_id)),
            post_end_slots_apply(1, array_agg(group_buying_end), array_agg(category_id))
    FROM inserted;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION posts_day_counts_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM post_day_counts_apply(-1, array_agg(group_buying_start), array_agg(group_buying_end), array_agg(category_id)),
            post_end_slots_apply(-1, array_agg(group_buying_end), array_agg(category_id))
    FROM deleted;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION posts_day_counts_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM post_day_counts_apply(-1, ARRAY[OLD.group_buying_start], ARRAY[OLD.group_buying_end], ARRAY[OLD.category_id]);
    PERFORM post_day_counts_apply(1, ARRAY[NEW.group_buying_start], ARRAY[NEW.group_buying_end], ARRAY[NEW.category_id]);
    -- A new start alone leaves the slots as they are.
    IF OLD.group_buying_end IS DISTINCT FROM NEW.group_buying_end OR OLD.category_id IS DISTINCT FROM NEW.category_id THEN
        PERFORM post_end_slots_apply(-1, ARRAY[OLD.group_buying_end], ARRAY[OLD.category_id]);
        PERFORM post_end_slots_apply(1, ARRAY[NEW.group_buying_end], ARRAY[NEW.category_id]);
    END IF;
    RETURN NULL;
END;
$$;

-- The first quarter starting at or after an instant.
CREATE FUNCTION end_slot_after(instant timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN end_slot(instant) = instant THEN instant ELSE end_slot(instant) + interval '15 minutes' END
$$;

-- The same answer as 0016's: per category, open at midnight minus ended in [day_start, at).
-- [day_start, at) = [day_start, first) ∪ whole quarters [first, last) ∪ [last, at), where
-- first is the first quarter starting at or after day_start and last the start of at's
-- quarter (never before first); the outer two are counted in posts_end (the first is empty
-- for a day start on a quarter, as Korea's midnights are). One UNION ALL summed per
-- category: a caller's category condition reaches every branch, and it plans in ~0.9 ms
-- where joining each part to the categories took 1.6 ms (planned anew per request: with
-- the ranges' sizes unknown, PostgreSQL keeps custom plans for it).
CREATE OR REPLACE FUNCTION open_post_counts(day date, day_start timestamptz, at timestamptz)
RETURNS TABLE (category_id text, open_count integer)
LANGUAGE sql STABLE AS $$
    SELECT c.id, COALESCE(sum(u.n), 0)::integer
    FROM categories c
    LEFT JOIN (
        SELECT f.category_id, f.open_count::bigint AS n FROM feed_open_counts f WHERE f.day = open_post_counts.day
        UNION ALL
        SELECT e.category_id, -e.ends FROM post_end_slots e
        WHERE e.slot >= end_slot_after(open_post_counts.day_start)
          AND e.slot < greatest(end_slot_after(open_post_counts.day_start), end_slot(open_post_counts.at))
        UNION ALL
        SELECT p.category_id, -1 FROM posts p
        WHERE p.group_buying_end >= open_post_counts.day_start
          AND p.group_buying_end < least(end_slot_after(open_post_counts.day_start), open_post_counts.at)
        UNION ALL
        SELECT p.category_id, -1 FROM posts p
        WHERE p.group_buying_end >= greatest(end_slot_after(open_post_counts.day_start), end_slot(open_post_counts.at))
          AND p.group_buying_end < open_post_counts.at) u ON u.category_id = c.id
    GROUP BY c.id
$$;
