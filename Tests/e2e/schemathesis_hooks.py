"""Schemathesis hooks for market09 (loaded through SCHEMATHESIS_HOOKS).

Every test case gets a fresh permanent account's access token: cases log out, delete the
account and edit the profile, so a token shared across cases would be revoked by the first
logout and every later case would only see 401.
"""
import datetime
import json
import os
import urllib.request
import uuid

import schemathesis


@schemathesis.auth(refresh_interval=None)
class FreshAccount:
    """A new permanent account per case; an anonymous one for the upgrades (/v1/auth/upgrade,
    PUT /auth/v1/user), which only they may call."""

    def get(self, case, context):
        base = context.operation.base_url.rstrip("/")
        if context.operation.path == "/v1/auth/upgrade" or (context.operation.path, context.operation.method.upper()) == ("/auth/v1/user", "PUT"):
            path, body = "/v1/auth/anonymous", b""
        else:
            path = "/v1/auth/signup"
            body = json.dumps({"email": f"st-{uuid.uuid4().hex}@example.com", "password": "schemathesis-password"}).encode()
        request = urllib.request.Request(base + path, data=body, method="POST", headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)["access_token"]

    def set(self, case, data, context):
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"
        if context.operation.path.startswith("/v1/ingest/"):
            # The ingest door takes a service key, never a user's token (SchemathesisTests makes one).
            case.headers["Authorization"] = f"Bearer {os.environ['M09_INGEST_KEY']}"
        if _supabase(context.operation.path):
            # The compatible surface's key (the apikey scheme), from SupabaseClientTests' env.
            case.headers["apikey"] = os.environ["M09_ANON_KEY"]


def _supabase(path):
    return path.startswith(("/auth/v1/", "/functions/v1/", "/rest/v1/"))


# Rules of the contract that JSON Schema cannot state (each is in openapi.yaml's text).
# These hooks keep generated requests inside them, so a schema-valid request that breaks
# one is not counted as "valid data rejected"; the server's answers to breaking them are
# covered by the Swift tests.

DEEP_PAGE_LIMIT = 10_000
SHALLOW_PAGE_LIMIT = 1_000  # one influencer's posts, or a feed with `search` or a `status` other than `closed`


@schemathesis.hook
def map_case(context, case):
    """Applied to every generated case (coverage, fuzzing and stateful phases alike)."""
    if isinstance(case.path_parameters, dict):
        case.path_parameters = _resolved_links(case.path_parameters)
    if isinstance(case.query, dict):
        case.query = _within_paging_and_dates(context, case.query)
        if context.operation.path == "/rest/v1/likes":
            case.query = _postgrest_filters(case.query)
    if context.operation.path == "/v1/ingest/media" and not _negative(case):
        # As for uploads: "an image" is the contract's text, not something a byte string can be.
        case.body = TINY_PNG
    if isinstance(case.body, dict):
        case.body = _window_after_start(context, case.body)
        if context.operation.path in ("/v1/uploads", "/functions/v1/upload") and "file" in case.body:
            if _negative(case):
                # multipart/form-data cannot carry most schema violations (a file part is
                # bytes whatever was generated): schemathesis sent valid uploads as
                # negative cases. A missing file is the violation it can carry.
                del case.body["file"]
            else:
                # "An image" is what the contract's text asks of the file; a generated
                # byte string is not one (the Swift tests cover refused files).
                case.body["file"] = TINY_PNG
    return case


def _resolved_links(parameters):
    """A stateful step follows links schemathesis infers from field names (a claimed
    request's `influencer_id` to `/v1/influencers/{id}`); when the field was null (a request
    not yet approved) the step's id became the text "None", which no id can be. Such an id
    becomes one no influencer or post has: the step then meets a 404, as the link meant.
    An integral float (JSON Schema counts 99.0 an integer) is written as the integer it is:
    a URL's id is decimal digits (the contract's text), and `99.0` is answered 400."""
    def resolved(value):
        if value is None or value == "None":
            return 2147483647
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and value.endswith(".0") and value[:-2].isdigit():
            return value[:-2]
        return value
    return {name: resolved(value) for name, value in parameters.items()}


def _postgrest_filters(query):
    """The stateful phase fills `post_id` and `user_id` from other answers with bare values
    (`post_id=5198`); PostgREST's filters carry their operator (`eq.5198`), which a link
    cannot know. Bare ids and uuids get `eq.`; anything else is left as generated."""
    for name in ("post_id", "user_id"):
        value = query.get(name)
        if isinstance(value, (int, str)) and not str(value).startswith("eq.") and _bare_id(str(value)):
            query[name] = f"eq.{value}"
    return query


def _bare_id(text):
    try:
        uuid.UUID(text)
        return True
    except ValueError:
        return text.isdigit()


def _negative(case):
    """Whether schemathesis made this case to break the schema (left as it is)."""
    meta = getattr(case, "meta", None) or getattr(case, "_meta", None)
    return meta is not None and str(meta.generation.mode) == "negative"


# A 1 × 1 PNG: signature, IHDR, and a few bytes the server does not read.
TINY_PNG = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + b"IHDR" + bytes([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]) + b"\x00" * 16


def _within_paging_and_dates(context, query):
    """page × limit stays within the paging bound; date_from and date_to come together."""
    # A cursor is a token the server issued; a generated one is never valid (the Swift
    # tests cover refused cursors).
    query.pop("cursor", None)
    page, limit = _integer(query.get("page")), _integer(query.get("limit", 20))
    if page is not None and limit is not None and page >= 1 and limit >= 1:
        path = context.operation.path
        searched = bool(query.get("search")) or query.get("status") not in (None, "closed")
        shallow = path == "/v1/influencers/{id}/posts" or (path == "/v1/posts" and searched)
        bound = SHALLOW_PAGE_LIMIT if shallow else DEEP_PAGE_LIMIT
        if page * limit > bound:
            query["page"] = max(1, bound // limit)
    if context.operation.path == "/functions/v1/posts":
        _functions_posts(query)
    _schedule_range(query)
    if context.operation.path == "/v1/posts" and query.get("hashtag") is not None:
        # A hashtag's list takes no other filter, newest first.
        for name in ("search", "category", "date_from", "date_to", "status"):
            query.pop(name, None)
        if query.get("sort") not in (None, "latest"):
            query.pop("sort")
    first, last = query.get("date_from"), query.get("date_to")
    if isinstance(first, str) and last is None:
        query["date_to"] = first
    elif isinstance(last, str) and first is None:
        query["date_from"] = last
    elif isinstance(first, str) and isinstance(last, str) and first > last:
        query["date_from"], query["date_to"] = last, first
    return query


def _functions_posts(query):
    """The posts function reads page and limit leniently (unparsable: 1 and 20; limit
    clamped to 1-50), so its paging bound is checked on those values; a schedule needs both
    of its dates (its text says so)."""
    def lenient(value, default):
        try:
            return int(str(value))
        except ValueError:
            return default
    page = max(1, lenient(query.get("page", 1), 1))
    limit = min(50, max(1, lenient(query.get("limit", 20), 20)))
    bound = SHALLOW_PAGE_LIMIT if query.get("search") else DEEP_PAGE_LIMIT
    if page * limit > bound:
        query["page"] = str(max(1, bound // limit))
    if query.get("action") == "schedule":
        today = datetime.date.today().isoformat()
        query.setdefault("start_date", query.get("end_date", today))
        query.setdefault("end_date", query["start_date"])


def _schedule_range(query):
    """A schedule's end_date is not before its start_date and at most 91 days after it."""
    first, last = query.get("start_date"), query.get("end_date")
    try:
        start, end = datetime.date.fromisoformat(first), datetime.date.fromisoformat(last)
    except (TypeError, ValueError):
        return
    try:
        latest = start + datetime.timedelta(days=91)
    except OverflowError:
        latest = datetime.date.max
    query["end_date"] = min(max(start, end), latest).isoformat()


def _integer(value):
    """An integer query value, whether generated as a number or as its text (coverage)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


def _window_after_start(context, body):
    """A post's buying window ends after it starts, lasts at most 366 days and starts within
    366 days of the post's making (given whole in an edit, so it cannot cross the stored one)."""
    if context.operation.path not in ("/v1/posts", "/v1/posts/{id}", "/functions/v1/posts"):
        return body
    start, end = body.get("group_buying_start"), body.get("group_buying_end")
    if start is None and end is None:
        return body
    begins = _parse(start) if isinstance(start, str) else None
    ends = _parse(end) if isinstance(end, str) else None
    if (start is not None and begins is None) or (end is not None and ends is None):
        return body  # a malformed date: a negative case, left as generated
    from datetime import datetime, timedelta, timezone
    now = datetime.now(timezone.utc)
    if begins is None or abs(_aware(begins) - now) > timedelta(days=300):
        begins = now + timedelta(days=1)
    if ends is None or not (timedelta(0) < _aware(ends) - _aware(begins) <= timedelta(days=300)):
        ends = _aware(begins) + timedelta(days=7)
    body["group_buying_start"] = _aware(begins).isoformat().replace("+00:00", "Z")
    body["group_buying_end"] = _aware(ends).isoformat().replace("+00:00", "Z")
    return body


def _aware(moment):
    from datetime import timezone
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _parse(text):
    from datetime import datetime
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
