-- Likes of one post no longer wait for each other's commits. set_likes (0033) took the
-- post's row and kept it until its commit returned, and with a synchronous standby a commit
-- waits for the standby: the batches of one post from three instances took turns on that
-- row, each holding it through its wait (644–711 likes/s of one post on scripts/cluster).
--
-- Now a batch writes its likes and one row of post_like_deltas (the batch's net change) and
-- touches no post row (a lone like of a free post aside, below), so batches of one post
-- commit side by side; right after the commit
-- the server folds the post's pending deltas into posts.likes_count (fold_likes) in a short
-- transaction of its own and answers with the count after it. Readers still read
-- posts.likes_count alone: it moves only by folds, so it never goes down while only likes
-- arrive, and an answer's count includes the caller's like (the fold ran after its commit).
--
-- A fold is derived state: its commit does not wait (synchronous_commit off). Lost in a
-- crash or a failover, the deltas it took are still there (they committed with the likes,
-- synchronously), and the next fold or the server's sweep (every 5 s) counts them again.
-- Every other path that changes likes (account deletion, merges, imports) still moves the
-- count in its own transaction through the row trigger.
CREATE TABLE post_like_deltas (
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    post_id bigint NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    delta   integer NOT NULL
);
CREATE INDEX post_like_deltas_post ON post_like_deltas (post_id);

-- The row trigger leaves the count to the caller while set_likes runs (a transaction-local
-- setting: nothing outside set_likes can see it on).
CREATE OR REPLACE FUNCTION likes_maintain_count() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('market09.likes_counted_by_caller', true) = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        UPDATE posts SET likes_count = likes_count + 1 WHERE id = NEW.post_id;
        RETURN NEW;
    ELSE
        UPDATE posts SET likes_count = likes_count - 1 WHERE id = OLD.post_id;
        RETURN OLD;
    END IF;
END;
$$;

-- A batch's likes in user order (two batches sharing users then wait for each other's rows
-- in the same order and cannot deadlock; a user twice in a batch keeps its order).
--
-- A lone like (p_alone: nothing queued behind it on this instance) whose post's row is free
-- counts itself as before, the count moved in its own transaction by the row trigger: one
-- statement, no fold. Likes spread over many posts are all like that, and folding each one
-- separately halved them (5,815 → 2,292 likes/s on one node). Any other batch, or a lone
-- like finding the row taken (another instance's like of a hot post), writes a delta and
-- is folded after its commit.
--
-- Returns (true, the count) when counted here, (false, the net change) when it wrote a delta
-- to fold, (NULL, NULL) when the post does not exist.
DROP FUNCTION set_likes(bigint, uuid[], boolean[]);
CREATE FUNCTION set_likes(p_post bigint, p_users uuid[], p_liked boolean[], p_alone boolean,
                          OUT counted boolean, OUT value integer)
LANGUAGE plpgsql AS $$
DECLARE
    net integer := 0;
    changed integer;
    item record;
BEGIN
    counted := false;
    IF p_alone THEN
        PERFORM 1 FROM posts WHERE id = p_post FOR NO KEY UPDATE SKIP LOCKED;
        counted := FOUND;
    END IF;
    IF NOT counted THEN
        IF NOT EXISTS (SELECT 1 FROM posts WHERE id = p_post) THEN
            counted := NULL;
            RETURN;
        END IF;
        PERFORM set_config('market09.likes_counted_by_caller', 'on', true);
    END IF;
    FOR item IN SELECT u, l FROM unnest(p_users, p_liked) WITH ORDINALITY AS t (u, l, i) ORDER BY u, i LOOP
        IF item.l THEN
            INSERT INTO likes (user_id, post_id) VALUES (item.u, p_post) ON CONFLICT DO NOTHING;
            GET DIAGNOSTICS changed = ROW_COUNT;
            net := net + changed;
        ELSE
            DELETE FROM likes WHERE user_id = item.u AND post_id = p_post;
            GET DIAGNOSTICS changed = ROW_COUNT;
            net := net - changed;
        END IF;
    END LOOP;
    IF counted THEN
        -- A new statement in a VOLATILE function sees the trigger's updates.
        value := (SELECT likes_count FROM posts WHERE id = p_post);
        RETURN;
    END IF;
    PERFORM set_config('market09.likes_counted_by_caller', 'off', true);
    IF net <> 0 THEN
        INSERT INTO post_like_deltas (post_id, delta) VALUES (p_post, net);
    END IF;
    value := net;
END;
$$;

-- Folds the post's committed deltas into its count; returns the count after, NULL when
-- the post does not exist. Folds of one post queue on its row for the ~1 ms they take.
CREATE FUNCTION fold_likes(p_post bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    pending integer;
    total integer;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM 1 FROM posts WHERE id = p_post FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    WITH taken AS (DELETE FROM post_like_deltas WHERE post_id = p_post RETURNING delta)
    SELECT coalesce(sum(delta), 0) INTO pending FROM taken;
    IF pending = 0 THEN
        SELECT likes_count INTO total FROM posts WHERE id = p_post;
    ELSE
        UPDATE posts SET likes_count = likes_count + pending WHERE id = p_post RETURNING likes_count INTO total;
    END IF;
    RETURN total;
END;
$$;
