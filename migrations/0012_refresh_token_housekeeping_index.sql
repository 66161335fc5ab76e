-- Auth housekeeping deletes refresh tokens spent long ago; without this index each pass
-- would scan every token.
CREATE INDEX refresh_tokens_used_at ON refresh_tokens (used_at) WHERE used_at IS NOT NULL;
