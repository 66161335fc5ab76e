"""Drives the operators' console (/admin) in headless Chromium, as an operator would, and
checks each action in the app's own API: sign-in (an ordinary account and an anonymous
visitor are refused), approve an influencer request, edit a price, hide a post (gone from
/v1/posts, search, Top 10 and /functions/v1/posts), create an ingest key and use it, revoke
it; a cross-site form and a token-less POST change nothing; a caption or name carrying a
script renders as text; the audit log lists every action; axe-core finds no serious or
critical violation on any page. Saves a screenshot of the overview.

Usage: console_in_browser.py BASE_URL ADMIN_EMAIL ADMIN_PASSWORD INFLUENCER_ID ANON_KEY SCREENSHOT.png
Prints "ok" and exits 0 when all holds. Needs chromium, chromium-driver, selenium and
axe-selenium-python (its axe-core; scripts/test installs them all).
"""
import http.server
import json
import os
import sys
import threading
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone

import axe_selenium_python
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

HOSTILE = "<script>document.title='pwned'</script>수분 크림"
CAPTION = "<img src=x onerror=\"document.title='pwned'\"> 공구 오픈"


def api(base, method, path, body=None, token=None, headers=None):
    request = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def post_ids(value):
    """The ids of every post (an object with a product_name) anywhere in an answer."""
    if isinstance(value, list):
        return {found for item in value for found in post_ids(item)}
    if isinstance(value, dict):
        own = {value["id"]} if "product_name" in value and "id" in value else set()
        return own.union(*(post_ids(item) for item in value.values()))
    return set()


DRIVER = []


def check(condition, message):
    if not condition:
        page = DRIVER[0].current_url + "\n" + DRIVER[0].find_element(By.TAG_NAME, "body").text[:1500] if DRIVER else ""
        print("FAILED: " + message + "\n" + page)
        sys.exit(1)


def shows(driver, text, seconds=15):
    """Whether the page comes to contain `text` (a click's navigation finishes on its own time)."""
    try:
        WebDriverWait(driver, seconds).until(lambda d: text in d.page_source)
        return True
    except Exception:
        return False


def axe_check(driver, page):
    script = os.path.join(os.path.dirname(axe_selenium_python.__file__), "node_modules", "axe-core", "axe.min.js")
    with open(script) as file:
        driver.execute_script(file.read())
    result = driver.execute_async_script("var done = arguments[arguments.length - 1]; axe.run().then(done, function (e) { done({error: String(e)}); });")
    check("error" not in result, f"axe failed on {page}: {result}")
    serious = [f"{v['id']} ({v['impact']}): {v['help']}" for v in result["violations"] if v["impact"] in ("serious", "critical")]
    check(not serious, f"axe on {page}: {serious}")


def submit_form(driver, action):
    driver.find_element(By.CSS_SELECTOR, f"form[action='{action}'] button[type=submit]").click()


def main(base, email, password, influencer, anon_key, screenshot):
    # A member, their hostile post and an influencer request, through the app's API.
    status, text = api(base, "POST", "/v1/auth/signup", {"email": "member@console.test", "password": "member-password-1", "nickname": "member"})
    check(status in (200, 201), f"member sign-up: {status} {text}")
    member = json.loads(text)["access_token"]
    now = datetime.now(timezone.utc)
    post = {"influencer_id": influencer, "product_name": HOSTILE, "price": 19900, "category": "beauty", "caption": CAPTION,
            "group_buying_start": (now - timedelta(hours=1)).isoformat(), "group_buying_end": (now + timedelta(days=3)).isoformat()}
    status, text = api(base, "POST", "/v1/posts", post, token=member)
    check(status == 201, f"post: {status} {text}")
    post_id = json.loads(text)["id"]
    status, text = api(base, "POST", "/v1/influencer-requests", {"instagram_username": "console.new"}, token=member)
    check(status == 202, f"influencer request: {status} {text}")

    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,1600",
                     "--host-resolver-rules=MAP * 127.0.0.1:9, EXCLUDE localhost, EXCLUDE 127.0.0.1"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(60)
    DRIVER.append(driver)
    try:
        # Anonymous: the sign-in page. An ordinary member: refused.
        driver.get(base + "/admin/posts")
        check(driver.current_url.endswith("/admin/login"), f"anonymous reached {driver.current_url}")
        axe_check(driver, "sign-in")
        sign_in(driver, "member@console.test", "member-password-1")
        check(shows(driver, "not an admin") and driver.current_url.endswith("/admin/login"), "a member was let in")
        sign_in(driver, email, password)
        check(shows(driver, "Posts by category now") and driver.current_url.rstrip("/").endswith("/admin"), f"admin sign-in landed on {driver.current_url}")
        cookie = driver.get_cookie("market09_console")
        check(cookie and cookie["httpOnly"] and cookie.get("sameSite") == "Strict", f"session cookie flags: {cookie}")
        check(driver.find_elements(By.CSS_SELECTOR, ".chart svg rect, .chart svg line"), "the overview has no chart")
        driver.execute_script("window.scrollTo(0, 0)")
        driver.save_screenshot(screenshot)
        axe_check(driver, "overview")

        # Approve the request with the profile's fields; the influencer is in the app's API.
        driver.get(base + "/admin/requests?status=processing")
        axe_check(driver, "requests")
        driver.find_element(By.CSS_SELECTOR, "details summary").click()
        driver.find_element(By.ID, "f-full_name").send_keys("콘솔 뉴")
        driver.find_element(By.ID, "f-followers_count").send_keys("52000")
        driver.find_element(By.CSS_SELECTOR, "form[action$='/approve'] button").click()
        check(shows(driver, "Approved."), "no approval notice")
        status, text = api(base, "GET", "/v1/influencers?search=console.new", token=member)
        check(status == 200 and "console.new" in text, f"approved influencer not in the API: {status} {text[:300]}")

        # The hostile post renders as text, and no script ran.
        driver.get(base + f"/admin/posts/{post_id}")
        check(HOSTILE in driver.find_element(By.TAG_NAME, "h1").text, "the product name is not shown as text")
        check(CAPTION in driver.find_element(By.TAG_NAME, "pre").text, "the caption is not shown as text")
        check(not driver.find_elements(By.CSS_SELECTOR, "main script, main img") and driver.title != "pwned", "a stored script ran or rendered")
        axe_check(driver, "post")
        # Edit the price.
        price = driver.find_element(By.ID, "f-price")
        price.clear()
        price.send_keys("15900")
        submit_form(driver, f"/admin/posts/{post_id}")
        check(shows(driver, "Saved."), "no saved notice")
        status, text = api(base, "GET", f"/v1/posts/{post_id}", token=member)
        check(status == 200 and json.loads(text)["price"] == 15900, f"edited price not in the API: {text[:300]}")

        # A token-less POST and a cross-site form change nothing.
        session = {"Cookie": f"market09_console={cookie['value']}", "Content-Type": "application/x-www-form-urlencoded"}
        request = urllib.request.Request(base + f"/admin/posts/{post_id}/hide", method="POST", data=b"", headers=session)
        try:
            urllib.request.urlopen(request, timeout=30)
            check(False, "a POST without the CSRF token was accepted")
        except urllib.error.HTTPError as error:
            check(error.code == 403, f"token-less POST: {error.code}")
        cross_site(driver, base, post_id)
        status, text = api(base, "GET", f"/v1/posts/{post_id}", token=member)
        check(status == 200, f"a forged form hid the post: {status}")

        # Hide it: gone from the feed, search, Top 10, the post itself and the Supabase surface
        # (each showed it before).
        lists = ("/v1/posts?limit=50", "/v1/posts?search=%EC%88%98%EB%B6%84", "/v1/posts/top10")
        supabase = {"apikey": anon_key, "Authorization": "Bearer " + member}
        for path in lists:
            status, text = api(base, "GET", path, token=member)
            check(status == 200 and post_id in post_ids(json.loads(text)), f"the post is not in {path} before it is hidden: {status} {text[:200]}")
        status, text = api(base, "GET", "/functions/v1/posts?action=list&page=1", headers=supabase)
        check(status == 200 and "수분 크림" in text, f"the post is not on /functions/v1/posts before it is hidden: {status} {text[:200]}")
        driver.get(base + f"/admin/posts/{post_id}")
        submit_form(driver, f"/admin/posts/{post_id}/hide")
        check(shows(driver, "Hidden: 1."), "no hidden notice")
        for path in lists:
            status, text = api(base, "GET", path, token=member)
            check(status == 200 and post_id not in post_ids(json.loads(text)), f"hidden post still in {path}: {status} {text[:200]}")
        check(api(base, "GET", f"/v1/posts/{post_id}", token=member)[0] == 404, "hidden post still answered")
        status, text = api(base, "GET", "/functions/v1/posts?action=list&page=1", headers=supabase)
        check(status == 200 and "수분 크림" not in text, f"hidden post on /functions/v1/posts: {status} {text[:200]}")
        driver.get(base + "/admin/posts?hidden=1")
        check(str(post_id) in driver.page_source, "the hidden post is not listed as hidden")
        axe_check(driver, "posts")

        # An ingest key: created (shown once), used, revoked, refused.
        driver.get(base + "/admin/keys")
        driver.find_element(By.ID, "f-name").send_keys("console-n8n")
        submit_form(driver, "/admin/keys")
        check(shows(driver, "new-key"), "no new key shown")
        key = driver.find_element(By.ID, "new-key").text.strip()
        check(key.startswith("m09_ingest_"), f"no key shown: {key!r}")
        axe_check(driver, "keys")
        check(api(base, "GET", "/v1/ingest/influencers?limit=1", token=key)[0] == 200, "the new key was refused")
        driver.find_element(By.CSS_SELECTOR, "form[action$='/revoke'] button").click()
        check(shows(driver, "Revoked."), "no revoked notice")
        check(api(base, "GET", "/v1/ingest/influencers?limit=1", token=key)[0] == 401, "the revoked key still works")

        for page in ("/admin/influencers", "/admin/users", f"/admin/influencers/{influencer}"):
            driver.get(base + page)
            axe_check(driver, page)
        # The hostile influencer's name and bio are text on their page.
        check("<img src=x onerror=alert(1)>" in driver.find_element(By.ID, "f-full_name").get_attribute("value"), "the name is not the text it was")
        check("<script>" in driver.find_element(By.ID, "f-biography").text and driver.title != "pwned", "the bio is not text")
        driver.get(base + "/admin/users?q=member%40console.test")
        driver.find_element(By.LINK_TEXT, "member@console.test").click()
        check(shows(driver, "Sign out everywhere"), "no user page")
        axe_check(driver, "user")

        # The audit log shows each action, and is not editable from the console.
        driver.get(base + "/admin/audit")
        log = driver.page_source
        for action in ("influencer_request.approve", "post.edit", "post.hide", "api_key.create", "api_key.revoke"):
            check(action in log, f"audit log lacks {action}")
        check(not driver.find_elements(By.CSS_SELECTOR, "main form[method=post]"), "the audit log has a form that changes it")
        axe_check(driver, "audit")
        # On a phone's width, no page is wider than the screen (tables scroll in their box).
        driver.set_window_size(390, 844)
        for page in ("/admin", "/admin/posts", "/admin/requests", "/admin/audit"):
            driver.get(base + page)
            overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
            check(overflow <= 1, f"{page} is {overflow}px wider than a phone's screen")
        refused = [e["message"] for e in driver.get_log("browser") if "Content Security Policy" in e["message"]]
        check(not refused, f"the console's own pages broke its policy: {refused[:3]}")
        print("ok")
    finally:
        driver.quit()


def sign_in(driver, email, password):
    driver.get(driver.current_url.split("/admin")[0] + "/admin/login")
    driver.find_element(By.ID, "f-email").send_keys(email)
    driver.find_element(By.ID, "f-password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "form[action='/admin/login'] button").click()


def cross_site(driver, base, post_id):
    """A page on another origin (another port of loopback) that posts a form to the console."""
    page = f"""<!doctype html><html><body><form id="f" method="post" action="{base}/admin/posts/{post_id}/hide">
    <input name="csrf" value="guess"></form><script>document.getElementById('f').submit()</script></body></html>""".encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *arguments):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.handle_request, daemon=True).start()
    driver.get(f"http://localhost:{server.server_port}/")
    driver.implicitly_wait(0)
    import time
    for _ in range(50):
        if "/admin/" in driver.current_url:
            break
        time.sleep(0.1)
    check("/admin/" in driver.current_url and ("Refused" in driver.page_source or "Signed out" in driver.page_source),
          f"the cross-site form was not refused: {driver.current_url} {driver.page_source[:300]}")
    server.server_close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6])
