import PostgresDriver

/// The statements of ``PostgresSupabaseImporter``, in order, over the export staged in
/// `s_<table>` (all text). Each names the table it fills and the export table it reads.
enum SupabaseImportSQL {
    static let statements: [(table: String, source: String, sql: SQL)] = [
        // Users who can sign in here: those with a Google or Apple identity (the app signs
        // in with nothing else). Same ids, so sessions of the new server find their data.
        // The ids this import creates are kept: identities link to those alone.
        ("users", "users", """
            WITH created AS (
                INSERT INTO users (id, is_anonymous, nickname, profile_url, created_at)
                SELECT DISTINCT ON (pg_temp.id(u.id)) pg_temp.id(u.id), false,
                       CASE WHEN char_length(btrim(u.nickname)) BETWEEN 1 AND 30 THEN btrim(u.nickname) END,
                       pg_temp.url(u.profile_url), COALESCE(pg_temp.ts(u.created_at), now())
                FROM s_users u
                WHERE pg_temp.id(u.id) IS NOT NULL
                  AND EXISTS (SELECT 1 FROM s_identities i WHERE pg_temp.id(i.user_id) = pg_temp.id(u.id) AND i.provider IN ('google', 'apple'))
                ON CONFLICT (id) DO NOTHING
                RETURNING id),
            kept AS (INSERT INTO s_created_users SELECT id FROM created RETURNING 1)
            SELECT count(*)::int FROM kept
            """),
        // Only to users this import created: an id in the export that names an account
        // already here (made here, or by an earlier import) would otherwise hand that
        // account to whoever signs in with the export's Google or Apple identity.
        ("identities", "identities", """
            INSERT INTO identities (id, user_id, provider, subject, email, created_at)
            SELECT gen_random_uuid(), c.id, i.provider, i.provider_id,
                   CASE WHEN char_length(i.email) <= 254 THEN lower(btrim(i.email)) END, COALESCE(pg_temp.ts(i.created_at), now())
            FROM s_identities i JOIN s_created_users c ON c.id = pg_temp.id(i.user_id)
            WHERE i.provider IN ('google', 'apple') AND char_length(i.provider_id) BETWEEN 1 AND 255
            ON CONFLICT (provider, subject) DO NOTHING
            """),
        ("influencers", "influencers", """
            INSERT INTO influencers (username, full_name, profile_pic_url, external_url, biography, followers_count, category_id, created_at,
                                     instagram_id, external_url_title, last_synced_at)
            SELECT DISTINCT ON (lower(btrim(s.username))) lower(btrim(s.username)),
                   CASE WHEN char_length(s.full_name) <= 100 AND s.full_name !~ '[[:cntrl:]]' THEN s.full_name END,
                   pg_temp.url(s.profile_pic_url), pg_temp.url(s.external_url),
                   CASE WHEN char_length(s.biography) <= 2000 AND s.biography !~ '[\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f]' THEN s.biography END,
                   CASE WHEN s.followers_count ~ '^[0-9]{1,9}$' THEN s.followers_count::integer ELSE 0 END,
                   pg_temp.category(s.category), COALESCE(pg_temp.ts(s.created_at), now()),
                   -- The original pipeline keyed influencers by Instagram's account id; the
                   -- app's own requests by 'inf_<uuid>'. The first row of an id keeps it.
                   CASE WHEN s.id ~ '^[0-9]{1,32}$' AND NOT EXISTS (SELECT 1 FROM influencers i WHERE i.instagram_id = s.id)
                        AND lower(btrim(s.username)) = (SELECT min(lower(btrim(t.username))) FROM s_influencers t WHERE t.id = s.id) THEN s.id END,
                   CASE WHEN char_length(s.external_url_title) <= 200 AND s.external_url_title !~ '[[:cntrl:]]' THEN s.external_url_title END,
                   pg_temp.ts(s.last_synced_at)
            FROM s_influencers s
            WHERE lower(btrim(s.username)) ~ '^[a-z0-9._]{1,30}$'
            ON CONFLICT (username) DO NOTHING
            """),
        ("supabase_influencer_ids", "influencers", """
            INSERT INTO supabase_influencer_ids (text_id, influencer_id)
            SELECT DISTINCT ON (s.id) s.id, i.id FROM s_influencers s JOIN influencers i ON i.username = lower(btrim(s.username))
            WHERE char_length(s.id) BETWEEN 1 AND 100
            ON CONFLICT (text_id) DO NOTHING
            """),
        // Posts under the rules of /v1/posts (PostRules): a product name, a category, a window
        // that starts before it ends and lasts at most 366 days, starting within 366 days of
        // a posted_at between Instagram's opening and now; bad URLs and tags are dropped.
        // Like counts start at zero: the likes below count them, as they do here.
        ("posts", "posts", """
            WITH ready AS (
                SELECT s.id AS text_id, a.influencer_id, btrim(s.product_name) AS product_name,
                       CASE WHEN s.price ~ '^[0-9]{1,10}$' AND s.price::bigint <= 2147483647 THEN s.price::integer END AS price,
                       pg_temp.category(s.category) AS category_id, pg_temp.url(s.display_url) AS display_url,
                       pg_temp.url(s.group_buying_url) AS group_buying_url, pg_temp.ts(s.group_buying_start) AS starts,
                       pg_temp.ts(s.group_buying_end) AS ends, (SELECT u.id FROM users u WHERE u.id = pg_temp.id(s.submitted_by)) AS submitted_by,
                       COALESCE(pg_temp.ts(s.posted_at), pg_temp.ts(s.created_at), now()) AS posted_at, pg_temp.url(s.post_url) AS post_url,
                       CASE WHEN s.caption !~ '[\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f]' THEN left(s.caption, 2200) END AS caption, pg_temp.tags(s.hashtags) AS hashtags,
                       CASE WHEN s.post_type ~ '^[A-Za-z_]{1,20}$' THEN s.post_type END AS post_type
                FROM s_posts s JOIN supabase_influencer_ids a ON a.text_id = s.influencer_id
            ), valid AS (
                SELECT * FROM ready
                WHERE char_length(product_name) BETWEEN 1 AND 200 AND product_name !~ '[[:cntrl:]]' AND category_id IS NOT NULL
                  AND starts < ends AND ends - starts <= interval '366 days'
                  AND posted_at BETWEEN '2010-10-06T00:00:00Z' AND now() + interval '1 hour'
                  AND starts BETWEEN posted_at - interval '366 days' AND posted_at + interval '366 days'
            ), inserted AS (
                INSERT INTO posts (influencer_id, product_name, price, category_id, display_url, group_buying_url, group_buying_start,
                                   group_buying_end, submitted_by, posted_at, post_url, caption, hashtags, post_type, source)
                SELECT DISTINCT ON (influencer_id, product_name, starts, ends) influencer_id, product_name, price, category_id, display_url,
                       group_buying_url, starts, ends, submitted_by, posted_at, post_url, caption, hashtags, post_type,
                       CASE WHEN submitted_by IS NULL THEN 'import' ELSE 'app' END
                FROM valid ORDER BY influencer_id, product_name, starts, ends, posted_at, text_id  -- of repeats, the first posted
                ON CONFLICT (influencer_id, product_name, group_buying_start, group_buying_end) DO NOTHING
                RETURNING id, influencer_id, product_name, group_buying_start, group_buying_end
            ), aliases AS (
                INSERT INTO supabase_post_ids (text_id, post_id)
                SELECT DISTINCT ON (v.text_id) v.text_id, p.id FROM valid v
                JOIN inserted p ON (p.influencer_id, p.product_name, p.group_buying_start, p.group_buying_end) = (v.influencer_id, v.product_name, v.starts, v.ends)
                WHERE char_length(v.text_id) BETWEEN 1 AND 100
                ON CONFLICT (text_id) DO NOTHING
            )
            SELECT count(*) FROM inserted
            """),
        ("likes", "likes", """
            INSERT INTO likes (user_id, post_id, created_at)
            SELECT DISTINCT ON (u.id, a.post_id) u.id, a.post_id, COALESCE(pg_temp.ts(l.created_at), now())
            FROM s_likes l JOIN users u ON u.id = pg_temp.id(l.user_id) AND NOT u.is_anonymous
            JOIN supabase_post_ids a ON a.text_id = l.post_id
            ON CONFLICT (user_id, post_id) DO NOTHING
            """),
        ("follows", "follows", """
            INSERT INTO follows (user_id, influencer_id, created_at)
            SELECT DISTINCT ON (u.id, a.influencer_id) u.id, a.influencer_id, COALESCE(pg_temp.ts(f.created_at), now())
            FROM s_follows f JOIN users u ON u.id = pg_temp.id(f.user_id) AND NOT u.is_anonymous
            JOIN supabase_influencer_ids a ON a.text_id = f.influencer_id
            ON CONFLICT (user_id, influencer_id) DO NOTHING
            """),
    ]
}
