"""Fixtures for tests of the built book: a local HTTP server and headless Debian Chromium."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from pathlib import Path

import pytest
from browser_helpers import offline_page
from support import build_book

from masrl import paths

BUILD = paths.REPO_ROOT / "_build" / "html"
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def chromium_path() -> str:
    found = shutil.which("chromium")
    if not found:
        pytest.fail("Debian's chromium is not installed (make system-deps installs it)")
    return found


@pytest.fixture(scope="session")
def built_book() -> Path:
    """The book as `make book` built it; built here if it is missing."""
    if not (BUILD / "index.html").exists():
        build_book(paths.REPO_ROOT, paths.REPO_ROOT)
    return BUILD


class Server:
    def __init__(self, root: Path):
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output readable
        pass


@pytest.fixture
def serve():
    servers = []

    def start(root: Path) -> Server:
        servers.append(Server(root))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.fixture(scope="session")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), headless=True,
                                             args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


VIEWPORT = {"width": 1280, "height": 800}  # the width the reading tests check


@pytest.fixture
def page(browser):
    """A page 1280 px wide that records, and blocks, every request that leaves localhost."""
    page = offline_page(browser, VIEWPORT)
    yield page
    page.context.close()
