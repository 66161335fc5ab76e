-- GET /v1/me: PostgresUserRepository.find.
SELECT u.id, u.is_anonymous, u.role, u.nickname, u.profile_url, u.created_at, i.email, i.provider
FROM users u
LEFT JOIN LATERAL (SELECT email, provider FROM identities WHERE user_id = u.id ORDER BY created_at, id LIMIT 1) i ON true
WHERE u.id = :viewer;
