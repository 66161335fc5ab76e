-- The text ids posts and influencers had in the 09Market Supabase project
-- (`market09 import supabase`): posts' UUIDs and influencers' `inf_<uuid>`, kept beside
-- the new integer ids so imported data can be traced back and links that carried an old
-- id can be resolved. Rows go with the post or influencer they name.
CREATE TABLE supabase_post_ids (
    text_id text PRIMARY KEY CHECK (char_length(text_id) BETWEEN 1 AND 100),
    post_id bigint NOT NULL REFERENCES posts (id) ON DELETE CASCADE
);
CREATE INDEX supabase_post_ids_post ON supabase_post_ids (post_id);

CREATE TABLE supabase_influencer_ids (
    text_id       text PRIMARY KEY CHECK (char_length(text_id) BETWEEN 1 AND 100),
    influencer_id bigint NOT NULL REFERENCES influencers (id) ON DELETE CASCADE
);
CREATE INDEX supabase_influencer_ids_influencer ON supabase_influencer_ids (influencer_id);
