"""Drives GET /docs in headless Chromium: the page loads the contract, lists every tag,
and "Try it out" on GET /v1/categories shows a 200, with no Content-Security-Policy or
integrity error in the console. With --cdn-blocked (the default configuration, the CDN's
name mapped to a closed loopback port, so nothing leaves this machine), the page instead
says the files could not be loaded and what to do, and its tags carry integrity hashes.

Usage: docs_in_browser.py BASE_URL TAG[,TAG...] [--cdn-blocked]   (exit 0 and "ok" when all holds)
Needs Debian's chromium and chromium-driver, and selenium from PyPI (scripts/test installs them).
"""
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait


def main(base, tags, cdn_blocked):
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    # Every name but localhost resolves to a closed loopback port: the CDN is unreachable
    # whatever network the machine has, and no request leaves it.
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--host-resolver-rules=MAP * 127.0.0.1:9, EXCLUDE localhost, EXCLUDE 127.0.0.1"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        wait = WebDriverWait(driver, 30)
        driver.get(base + "/docs")
        if cdn_blocked:
            blocked(driver, wait)
            print("ok")
            return
        wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, ".opblock-tag-section")))
        shown = {element.get_attribute("data-tag") for element in driver.find_elements(By.CSS_SELECTOR, ".opblock-tag")}
        missing = set(tags) - shown
        if missing:
            fail(f"tags not listed: {sorted(missing)} (shown: {sorted(shown)})")
        title = driver.find_element(By.CSS_SELECTOR, ".info .title").text
        if "Market09" not in title:
            fail(f"the page shows another title: {title!r}")

        operation = driver.find_element(By.ID, "operations-catalog-listCategories")
        operation.find_element(By.CSS_SELECTOR, ".opblock-summary").click()
        wait.until(lambda _: operation.find_elements(By.CSS_SELECTOR, ".try-out__btn"))[0].click()
        wait.until(lambda _: operation.find_elements(By.CSS_SELECTOR, ".execute"))[0].click()
        status = wait.until(lambda _: operation.find_elements(By.CSS_SELECTOR, ".live-responses-table tr.response .response-col_status"))[0]
        if status.text.strip() != "200":
            fail(f"Try it out answered {status.text!r}")
        body = operation.find_element(By.CSS_SELECTOR, ".live-responses-table tr.response .response-col_description").text
        if "뷰티" not in body:
            fail(f"the response shown is not the categories: {body[:200]!r}")
        refused = [entry["message"] for entry in driver.get_log("browser")
                   if "Content Security Policy" in entry["message"] or "integrity" in entry["message"]]
        if refused:
            fail(f"the browser refused something: {refused[:3]}")
        print("ok")
    finally:
        driver.quit()


def blocked(driver, wait):
    """The default page with the CDN out of reach: the message, not a blank page."""
    notice = wait.until(lambda d: d.find_element(By.ID, "docs-unavailable") if d.find_element(By.ID, "docs-unavailable").is_displayed() else None)
    text = notice.text
    for needed in ("could not load its files", "DOCS_ASSETS_DIR", "drf-spectacular-sidecar", "/openapi.yaml"):
        if needed not in text:
            fail(f"the notice does not say {needed!r}: {text[:300]!r}")
    for tag in driver.find_elements(By.CSS_SELECTOR, "script[src], link[rel=stylesheet]"):
        if not (tag.get_attribute("integrity") or "").startswith("sha384-") or tag.get_attribute("crossorigin") != "anonymous":
            fail(f"a third-party tag is not pinned: {tag.get_attribute('outerHTML')}")


def fail(message):
    print(message)
    sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1].rstrip("/"), [tag for tag in sys.argv[2].split(",") if tag], "--cdn-blocked" in sys.argv[3:])
