"""Headless Chromium for validating the HTML report (Debian's `chromium` and `chromedriver`).

Used by the browser test and `factqa bench html-report`; selenium comes with the `dev` extra.
"""

from __future__ import annotations

import shutil
from typing import Any


def chromium_paths() -> tuple[str, str] | None:
    """(browser, driver) when both are installed, else None."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (binary, driver) if binary and driver else None


def headless(width: int = 1280, height: int = 1400) -> Any:
    """A selenium Chrome driver on the installed Chromium, headless."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    paths = chromium_paths()
    if paths is None:
        raise RuntimeError("chromium and chromedriver are not installed (apt-get install them)")
    options = Options()
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        f"--window-size={width},{height}",
    ):
        options.add_argument(arg)
    options.binary_location = paths[0]
    return webdriver.Chrome(service=Service(paths[1]), options=options)
