-- A lone like counted by its own transaction (0034) answered posts.likes_count, which leaves
-- out the deltas of batches committed but not folded yet. When such a batch had already made
-- the caller's change (the same user tapping twice, the taps on two instances), the lone
-- like changed nothing itself and answered a count without the caller's like (an unlike, one
-- still with it): CI saw a like answered with 0. Holding the post's row, the lone like now
-- folds the pending deltas into the count too. The deltas it can see are those committed
-- before its statement; a batch it waited for (the like row the batch inserted) committed
-- before, so its delta is among them. Folds of the post wait for the row, so no delta is
-- counted twice. The usual case has none pending: one index probe of an empty range.
CREATE OR REPLACE FUNCTION set_likes(p_post bigint, p_users uuid[], p_liked boolean[], p_alone boolean,
                                     OUT counted boolean, OUT value integer)
LANGUAGE plpgsql AS $$
DECLARE
    net integer := 0;
    changed integer;
    pending integer;
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
        WITH taken AS (DELETE FROM post_like_deltas WHERE post_id = p_post RETURNING delta)
        SELECT coalesce(sum(delta), 0) INTO pending FROM taken;
        IF pending = 0 THEN
            -- A new statement in a VOLATILE function sees the trigger's updates.
            value := (SELECT likes_count FROM posts WHERE id = p_post);
        ELSE
            UPDATE posts SET likes_count = likes_count + pending WHERE id = p_post RETURNING likes_count INTO value;
        END IF;
        RETURN;
    END IF;
    PERFORM set_config('market09.likes_counted_by_caller', 'off', true);
    IF net <> 0 THEN
        INSERT INTO post_like_deltas (post_id, delta) VALUES (p_post, net);
    END IF;
    value := net;
END;
$$;
