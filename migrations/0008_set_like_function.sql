-- Liking and unliking in one statement: the change and the post's like count after it,
-- in the statement's own transaction. The server used to send BEGIN, the change, a
-- SELECT of the count and COMMIT: four round trips for one tap.
-- Returns NULL when the post does not exist (a like of a missing post fails on the
-- foreign key instead).
CREATE FUNCTION set_like(p_user uuid, p_post bigint, p_liked boolean) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
    IF p_liked THEN
        INSERT INTO likes (user_id, post_id) VALUES (p_user, p_post) ON CONFLICT DO NOTHING;
    ELSE
        DELETE FROM likes WHERE user_id = p_user AND post_id = p_post;
    END IF;
    -- A new statement in a VOLATILE function sees the trigger's update of likes_count.
    RETURN (SELECT likes_count FROM posts WHERE id = p_post);
END;
$$;
