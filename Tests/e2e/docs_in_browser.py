"""Drives GET /docs in headless Chromium: the page loads the contract, lists every tag,
and "Try it out" on GET /v1/categories shows a 200.

Usage: docs_in_browser.py BASE_URL TAG[,TAG...]   (exit 0 and "ok" when all holds)
Needs Debian's chromium and chromium-driver, and selenium from PyPI (scripts/test installs them).
"""
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait


def main(base, tags):
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        wait = WebDriverWait(driver, 30)
        driver.get(base + "/docs")
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
        print("ok")
    finally:
        driver.quit()


def fail(message):
    print(message)
    sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1].rstrip("/"), [tag for tag in sys.argv[2].split(",") if tag])
