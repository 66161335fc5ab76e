#!/usr/bin/env python3
"""Prints an HS256 access token for user SUB (the bench's own secret, same claims as the server's)."""
import base64, hashlib, hmac, json, sys, time, uuid

secret, sub = sys.argv[1], sys.argv[2]
kid = hashlib.sha256(("kid:" + secret).encode()).hexdigest()[:12]
now = int(time.time())
def b64(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
header = b64(json.dumps({"alg": "HS256", "kid": kid, "typ": "JWT"}, separators=(",", ":"), sort_keys=True).encode())
claims = {"iss": "market09", "aud": "market09-app", "sub": sub, "sid": str(uuid.uuid4()), "role": "user",
          "is_anonymous": False, "iat": now, "exp": now + 6 * 3600}
payload = b64(json.dumps(claims, separators=(",", ":"), sort_keys=True).encode())
signature = b64(hmac.new(secret.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest())
print(f"{header}.{payload}.{signature}")
