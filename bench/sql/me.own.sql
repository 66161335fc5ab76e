-- GET /v1/me: PostgresUserRepository.find (the user and its identities, one statement).
SELECT u.id, u.is_anonymous, u.role, u.nickname, u.profile_url, u.created_at,
       i.id, i.provider, i.subject, i.email, i.name, i.picture, i.created_at, i.last_sign_in_at, i.updated_at
FROM users u LEFT JOIN identities i ON i.user_id = u.id
WHERE u.id = :viewer
ORDER BY i.created_at, i.id;
