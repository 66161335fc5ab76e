-- Values the 09Market app's current backend stores, so moving over loses none:
-- - a price is its INTEGER column's, 0 to 2,147,483,647 (the app sends won; 100,000,000
--   refused a real high-end deal). Negative prices, which that column would also take, stay
--   refused: a group-buying price is never below zero.
-- - an influencer request for a name Instagram cannot have (spaces, punctuation) is
--   recorded, failed at once with `invalid_username`, as the current backend records it and
--   fails it in the background; only such a failed request may hold such a name.
ALTER TABLE posts DROP CONSTRAINT posts_price_check;
ALTER TABLE posts ADD CONSTRAINT posts_price_check CHECK (price BETWEEN 0 AND 2147483647);

ALTER TABLE influencer_requests DROP CONSTRAINT influencer_requests_username_check;
ALTER TABLE influencer_requests ADD CONSTRAINT influencer_requests_username_check CHECK (
    char_length(username) BETWEEN 1 AND 100
    AND (username ~ '^[a-z0-9._]{1,30}$' OR (status = 'failed' AND reason = 'invalid_username')));
