"""The official Supabase Python client (supabase on PyPI, pinned in requirements.txt)
against a live market09 serving the Supabase-compatible surface: the 09Market app's flows,
each answer decoded by the client itself. Run by Tests/AppTests/SupabaseClientTests.swift,
which starts the server and passes what it needs in the environment:

  M09_URL, M09_ANON_KEY     the server and its SUPABASE_ANON_KEY
  M09_JWT_SECRET            its signing secret (to make an expired token)
  M09_ID_TOKEN              a Google ID token the server's test identity provider signed
  M09_POST_ID               a post that is open now (to like)

Exits non-zero, naming the step, on the first unexpected answer.
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import time
import uuid

from supabase import ClientOptions, create_client
from supabase_auth.errors import AuthApiError
from supabase_auth.helpers import parse_auth_response
from supabase_functions.errors import FunctionsHttpError
from postgrest.exceptions import APIError
from httpx import QueryParams

URL = os.environ["M09_URL"]
KEY = os.environ["M09_ANON_KEY"]
POST = os.environ["M09_POST_ID"]
steps = []


def step(name):
    steps.append(name)
    print(f"- {name}", flush=True)


def client(key=KEY):
    # No background refresh thread: the scenario refreshes when it means to.
    return create_client(URL, key, ClientOptions(auto_refresh_token=False, persist_session=False))


def expect_auth_error(call, status, code):
    try:
        call()
    except AuthApiError as error:
        assert error.status == status and error.code == code, f"expected {status} {code}, got {error.status} {error.code}: {error.message}"
        return error
    raise AssertionError(f"expected an AuthApiError {status} {code}, got success")


def expired_token(user_id):
    """An access token like the server's, signed with its secret, expired an hour ago."""
    secret = os.environ["M09_JWT_SECRET"]
    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    kid = hashlib.sha256(("kid:" + secret).encode()).hexdigest()[:12]
    now = int(time.time())
    header = b64(json.dumps({"alg": "HS256", "kid": kid, "typ": "JWT"}, separators=(",", ":")).encode())
    claims = {"iss": "market09", "aud": "market09-app", "sub": user_id, "sid": str(uuid.uuid4()), "role": "user",
              "is_anonymous": True, "iat": now - 7200, "exp": now - 3600}
    payload = b64(json.dumps(claims, separators=(",", ":")).encode())
    signature = b64(hmac.new(secret.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest())
    return f"{header}.{payload}.{signature}"


def main():
    step("a wrong apikey is refused as Supabase's gateway refuses it")
    error = expect_auth_error(lambda: client("not-the-projects-anon-key").auth.sign_in_anonymously(), 401, None)
    assert "Invalid API key" in error.message, error.message

    app = client()
    step("anonymous sign-in")
    signed = app.auth.sign_in_anonymously()
    assert signed.user.is_anonymous and signed.session is not None
    assert isinstance(signed.session.expires_at, int) and signed.session.expires_at > time.time()
    anonymous_id = signed.user.id
    uuid.UUID(anonymous_id)

    step("read the session and the user")
    assert app.auth.get_session().access_token == signed.session.access_token
    assert app.auth.get_user().user.id == anonymous_id

    step("list and top 10 through functions.invoke")
    page = app.functions.invoke("posts?action=list&page=1&limit=30", {"method": "GET", "responseType": "json"})
    assert set(page) == {"data", "total", "page"} and page["page"] == 1 and page["total"] >= len(page["data"]) > 0, page.keys()
    assert all(isinstance(post["id"], str) and isinstance(post["influencer"]["id"], str) for post in page["data"])
    top = app.functions.invoke("posts?action=top10", {"method": "GET", "responseType": "json"})
    assert isinstance(top, list) and [post["rank"] for post in top] == list(range(1, len(top) + 1))
    me = app.functions.invoke("me", {"method": "GET"})
    assert me == b"", me  # 204: an anonymous caller has no profile

    step("an anonymous like is refused as row-level security refuses it")
    try:
        app.table("likes").insert({"user_id": anonymous_id, "post_id": POST}).execute()
        raise AssertionError("an anonymous like was accepted")
    except APIError as refused:
        assert refused.code == "42501", refused

    step("sign in with an ID token, linking the anonymous user")
    # supabase-js's linkIdentity({provider, token}) sends this; the Python client has no
    # public call for it, so its own request and parser are used.
    response = app.auth._request("POST", "token", jwt=app.auth.get_session().access_token, query=QueryParams(grant_type="id_token"),
                                 body={"provider": "google", "id_token": os.environ["M09_ID_TOKEN"], "access_token": None,
                                       "nonce": None, "link_identity": True, "gotrue_meta_security": {"captcha_token": None}})
    linked = parse_auth_response(response)
    assert linked.user.id == anonymous_id and not linked.user.is_anonymous
    app.auth._save_session(linked.session)
    app.auth._notify_all_subscribers("SIGNED_IN", linked.session)

    step("like and unlike through table('likes')")
    inserted = app.table("likes").insert({"user_id": anonymous_id, "post_id": POST}).execute()
    assert inserted.data and inserted.data[0]["post_id"] == POST, inserted.data
    mine = app.table("likes").select("post_id").eq("user_id", anonymous_id).execute()
    assert {"post_id": POST} in mine.data, mine.data
    listed = app.functions.invoke("posts?action=top10", {"method": "GET", "responseType": "json"})
    assert all(post["is_liked"] == (post["id"] == POST) for post in listed)
    deleted = app.table("likes").delete().eq("user_id", anonymous_id).eq("post_id", POST).execute()
    assert deleted.data == [{"user_id": anonymous_id, "post_id": POST}], deleted.data
    assert app.table("likes").select("post_id").eq("user_id", anonymous_id).execute().data == []
    try:
        app.table("likes").insert({"user_id": str(uuid.uuid4()), "post_id": POST}).execute()
        raise AssertionError("a like for another user was accepted")
    except APIError as refused:
        assert refused.code == "42501", refused

    step("refresh, and the parent of the active token gets the active pair (GoTrue's rule)")
    before = app.auth.get_session()
    refreshed = app.auth.refresh_session()
    assert refreshed.session.refresh_token != before.refresh_token and refreshed.user.id == anonymous_id
    active = app.auth.refresh_session(refreshed.session.refresh_token)
    time.sleep(1.2)
    again = client().auth.refresh_session(refreshed.session.refresh_token)
    assert again.session.refresh_token == active.session.refresh_token, "the parent of the active token did not get the active pair"

    step("an older refresh token is refused as reuse (after the reuse grace)")
    expect_auth_error(lambda: client().auth.refresh_session(before.refresh_token), 400, "refresh_token_already_used")

    step("update_user upgrades another anonymous user, keeping its id")
    other = client()
    other_id = other.auth.sign_in_anonymously().user.id
    email = f"py-{uuid.uuid4().hex[:12]}@example.com"
    updated = other.auth.update_user({"email": email, "password": "a long enough password"})
    assert updated.user.id == other_id and updated.user.email == email and not updated.user.is_anonymous
    again = client().auth.sign_in_with_password({"email": email, "password": "a long enough password"})
    assert again.user.id == other_id
    profile = client()
    profile.auth.set_session(again.session.access_token, again.session.refresh_token)
    assert profile.functions.invoke("me", {"method": "GET", "responseType": "json"})["id"] == other_id
    expect_auth_error(lambda: client().auth.sign_in_with_password({"email": email, "password": "wrong password here"}), 400, "invalid_credentials")

    step("an expired token is refused")
    expect_auth_error(lambda: client().auth.get_user(expired_token(other_id)), 403, "bad_jwt")

    step("sign out")
    session = again.session
    signer = client()
    signer.auth.set_session(session.access_token, session.refresh_token)
    signer.auth.sign_out()
    assert signer.auth.get_session() is None
    expect_auth_error(lambda: client().auth.get_user(session.access_token), 403, "session_not_found")
    try:
        signer.functions.invoke("posts?action=list", {"method": "GET"})
        raise AssertionError("a signed-out client listed posts")
    except FunctionsHttpError:
        pass

    print(f"ok: {len(steps)} steps", flush=True)


if __name__ == "__main__":
    try:
        main()
    except Exception as failure:  # noqa: BLE001 - the scenario reports any failure with its step
        print(f"FAILED at step '{steps[-1] if steps else 'start'}': {type(failure).__name__}: {failure}", flush=True)
        sys.exit(1)
