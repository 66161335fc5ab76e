-- Requests to add an influencer: one per Instagram username, verified in the background
-- through the profile lookup (or by an admin), with retries after lookup errors.

CREATE TABLE influencer_requests (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    username        text NOT NULL UNIQUE CHECK (username ~ '^[a-z0-9._]{1,30}$'),
    requested_by    uuid REFERENCES users (id) ON DELETE SET NULL,
    status          text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'approved', 'failed')),
    reason          text CHECK ((status = 'failed') = (reason IS NOT NULL)),
    influencer_id   bigint REFERENCES influencers (id) ON DELETE SET NULL,
    attempts        integer NOT NULL DEFAULT 0,
    -- When the next lookup may run, and until when a claimed one is leased to an instance.
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    leased_until    timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);

-- The worker's queue: due requests in order.
CREATE INDEX influencer_requests_due ON influencer_requests (next_attempt_at) WHERE status = 'processing';
-- "My requests", newest first; the per-user cap counts open ones here.
CREATE INDEX influencer_requests_requester ON influencer_requests (requested_by, created_at DESC, id DESC);
