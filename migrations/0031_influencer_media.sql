-- Influencers' profile pictures may be stored here too (the ingest API's media, the
-- Supabase bucket import): the pruning job must see them as references, through an index
-- like the posts' and users' (migration 0020).
CREATE INDEX influencers_profile_media ON influencers (media_name(profile_pic_url)) WHERE media_name(profile_pic_url) IS NOT NULL;
