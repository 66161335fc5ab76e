-- Likes of several posts in one statement and one commit: the server's groups (LikeBatches,
-- group commit across posts). A lone like of a post used to be a transaction of its own:
-- like/unlike pairs of 32 users over 2,000 posts cost ~250 µs of PostgreSQL CPU each on the
-- bench's 1 M posts, most of it per statement and per commit rather than per like.
--
-- Each post's likes go through set_likes (0036) as before: counted in place when they are the
-- post's only like in the group and its row is free, otherwise written as a delta the server
-- folds after the commit. Posts are taken in id order and each post's users in user order, so
-- two groups sharing likes wait for each other's rows in the same order and cannot deadlock.
-- One row per post: (post, counted, value) as set_likes answers it.
CREATE FUNCTION set_likes_group(p_posts bigint[], p_users uuid[], p_liked boolean[],
                                OUT post bigint, OUT counted boolean, OUT value integer)
RETURNS SETOF record
LANGUAGE plpgsql AS $$
DECLARE
    item record;
BEGIN
    FOR item IN
        SELECT t.p, array_agg(t.u ORDER BY t.i) AS users, array_agg(t.l ORDER BY t.i) AS liked
        FROM unnest(p_posts, p_users, p_liked) WITH ORDINALITY AS t (p, u, l, i)
        GROUP BY t.p ORDER BY t.p
    LOOP
        post := item.p;
        SELECT s.counted, s.value INTO counted, value
        FROM set_likes(item.p, item.users, item.liked, cardinality(item.users) = 1) s;
        RETURN NEXT;
    END LOOP;
END;
$$;
