"""The run's HTML page: structure checked with an HTML parser (one card per question, spans at
their offsets, hostile text escaped), and the filters checked in headless Chromium."""

from __future__ import annotations

import os
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.corpus import load_articles
from experiment.report.browser import chromium_paths, headless

from .conftest import (
    ARTICLE_A,
    SMALL_ANSWERS,
    FakeBackend,
    keyword_script,
    run_args,
    write_corpus,
)

runner = CliRunner()
HOSTILE_ARTICLE = ARTICLE_A.replace(
    "About 45% of buyers", "<b>About</b> 45% of buyers <script>alert('a')</script>"
)
QUESTIONS = (
    "id,article_id,question,answers,kind\n"
    'alpha-1,alpha,"How many units were sold <script>alert(1)</script>?","13,200",figure\n'
    "alpha-2,alpha,When was the Widget launched?,12 March 2024,date\n"
    "alpha-3,alpha,How much does the Widget cost?,$250,figure\n"
    "beta-1,beta,How many staff did the office open with?,40,figure\n"
    "beta-2,beta,What is the CEO's salary?,unanswerable,figure\n"
    'alpha-4,alpha,What was the sales target?,"10,000",figure\n'
)


class Page(HTMLParser):
    """Collects the elements the tests look at."""

    def __init__(self) -> None:
        super().__init__()
        self.cards: list[dict[str, str | None]] = []
        self.marks: list[dict[str, str | None]] = []
        self.scripts = 0
        self.bold = 0
        self._mark: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "article" and "card" in (a.get("class") or ""):
            self.cards.append(a)
        elif tag == "mark":
            self._mark, self._text = a, []
        elif tag == "script":
            self.scripts += 1
        elif tag == "b":
            self.bold += 1

    def handle_data(self, data: str) -> None:
        if self._mark is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "mark" and self._mark is not None:
            self.marks.append(self._mark | {"text": "".join(self._text)})
            self._mark = None


@pytest.fixture
def page(monkeypatch: pytest.MonkeyPatch, fakes, fake_factory, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    # every sample of the target question is a figure the article states, and wrong
    fakes["fake-small"] = FakeBackend(
        "fake-small", keyword_script({**SMALL_ANSWERS, "target": "13,200"})
    )
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    arts, qs = write_corpus(tmp_path, alpha=HOSTILE_ARTICLE, questions=QUESTIONS)
    return html_page(arts, qs, 4, tmp_path / "h")


def html_page(articles: Path, questions: Path, k: int, run: Path) -> Path:
    """`factqa run` with the fake models into `run`, then its page (`factqa report --html`)."""
    args = run_args(articles, questions, "fake-small", "fake-large", k, run.parent, run.name)
    res = runner.invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    res = runner.invoke(cli.app, ["report", str(run), "--html"])
    assert res.exit_code == 0, res.output
    return run / "report.html"


def test_the_page_has_a_card_per_question_spans_at_their_offsets_and_no_raw_html(
    page: Path,
) -> None:
    html = page.read_text(encoding="utf-8")
    parsed = Page()
    parsed.feed(html)
    assert [c["data-qid"] for c in parsed.cards] == [
        "alpha-1", "alpha-2", "alpha-3", "alpha-4", "beta-1", "beta-2"
    ]  # fmt: skip
    texts = {a.id: a.text for a in load_articles(page.parent.parent / "articles").values()}
    assert parsed.marks
    for mark in parsed.marks:
        start, end = int(mark["data-start"]), int(mark["data-end"])  # type: ignore[arg-type]
        card = int(mark["id"].split("-")[0][1:])  # type: ignore[union-attr]
        body = texts["alpha"] if card < 4 else texts["beta"]
        assert body[start:end] == mark["text"]
    assert any(m["class"] == "kept" for m in parsed.marks)
    # the page's own script is the only one; the article's <b> and <script> are text
    assert parsed.scripts == 1 and parsed.bold == 0
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert(" not in html
    assert "http://" not in html and "https://" not in html  # nothing fetched from a network
    assert html.count('data-in_text_wrong="1"') >= 1  # the verifier's blind spot, filterable


def _chrome():  # type: ignore[no-untyped-def]
    if chromium_paths() is None:
        if os.environ.get("FACTQA_REQUIRE_BROWSER"):
            pytest.fail("headless Chromium is required here (.ci/run installs it)")
        pytest.skip("chromium and chromedriver are not installed")
    return headless()


def test_the_confirmed_but_wrong_filter_works_in_a_real_browser(page: Path) -> None:
    from selenium.webdriver.common.by import By

    html = page.read_text(encoding="utf-8")
    expected = html.count('data-in_text_wrong="1"')
    browser = _chrome()
    try:
        t0 = time.perf_counter()
        browser.get(page.resolve().as_uri())
        load = time.perf_counter() - t0
        button = browser.find_element(By.CSS_SELECTOR, 'button[data-filter="in_text_wrong"]')
        assert f"({expected})" in button.text
        button.click()
        visible = [c for c in browser.find_elements(By.CSS_SELECTOR, ".card") if c.is_displayed()]
        assert expected >= 1 and len(visible) == expected
        assert browser.find_element(By.ID, "shown").text == f"showing {expected} of {expected}"
        browser.find_element(By.CSS_SELECTOR, 'button[data-filter="all"]').click()
        assert sum(c.is_displayed() for c in browser.find_elements(By.CSS_SELECTOR, ".card")) == 6
        search = browser.find_element(By.ID, "search")
        search.send_keys("staff")
        assert browser.find_element(By.ID, "shown").text == "showing 1 of 1"
        assert load < 30
        if os.environ.get("FACTQA_SCREENSHOT"):  # the README's picture comes from this check
            browser.save_screenshot(os.environ["FACTQA_SCREENSHOT"])
    finally:
        browser.quit()


def test_the_method_table_sorts_and_filters_and_cards_show_the_claims_methods(
    page: Path,
) -> None:
    from selenium.webdriver.common.by import By

    html = page.read_text(encoding="utf-8")
    parsed = Page()
    parsed.feed(html)
    first = html.split('class="card"', 2)[1]
    shown, more = first.split('<details class="more">', 1)
    assert "large@1: " in shown and "small-verified@4: " in shown
    assert "small-pass@4: " not in shown and "small-pass@4: " in more.split("</details>")[0]
    assert "#methods td, #methods th { white-space: nowrap; }" in html
    browser = _chrome()
    try:
        browser.get(page.resolve().as_uri())

        def methods() -> list[str]:
            rows = browser.find_elements(By.CSS_SELECTOR, "#methods tbody tr")
            return [r.get_attribute("data-method") for r in rows if r.is_displayed()]

        before = methods()
        header = browser.find_element(By.CSS_SELECTOR, '#methods th[data-col="1"]')
        header.click()  # accuracy, ascending
        rows = browser.find_elements(By.CSS_SELECTOR, "#methods tbody tr")
        accuracy = [float(r.find_elements(By.TAG_NAME, "td")[1].text.split()[0]) for r in rows]
        assert accuracy == sorted(accuracy) and methods() != before
        header.click()  # descending
        rows = browser.find_elements(By.CSS_SELECTOR, "#methods tbody tr")
        accuracy = [float(r.find_elements(By.TAG_NAME, "td")[1].text.split()[0]) for r in rows]
        assert accuracy == sorted(accuracy, reverse=True)
        cell = browser.find_element(By.CSS_SELECTOR, "#methods tbody td:nth-child(2)")
        assert cell.size["height"] < 2 * 16  # one line: the interval does not wrap
        browser.find_element(By.ID, "method-filter").send_keys("cascade@")
        assert methods() and all(m.startswith("cascade@") for m in methods())
        card = browser.find_element(By.ID, "card-0")
        answers = [s for s in card.find_elements(By.CSS_SELECTOR, "[data-method]")]
        assert all(
            s.get_attribute("data-method").startswith("cascade@")
            for s in answers
            if s.is_displayed()
        )
        assert any(s.is_displayed() for s in answers)  # the other methods opened to show them
    finally:
        browser.quit()


TABLE_ARTICLE = """---
id: beta
title: Beta's results
published: 2024-02-01
---
Results by year ($ in millions):

| | 2019 | 2018 |
|---|---|---|
| Revenue | 142.9 | 120.5 |
| <b>Note</b> \\| <script>alert(2)</script> | (3.1) | — |

Revenue was 142.9 in 2019.
"""
TABLE_QUESTIONS = (
    "id,article_id,question,answers,kind\n"
    'alpha-1,alpha,How many units were sold?,"13,200",figure\n'
    "beta-1,beta,What was the revenue in 2019?,$142.9 million,figure\n"
)


class Cells(HTMLParser):
    """The article tables' cells: (tag, class, text), and each mark's text."""

    def __init__(self) -> None:
        super().__init__()
        self.tables = 0
        self.cells: list[tuple[str, str, str]] = []
        self.marks: list[tuple[str, str]] = []
        self._cell: tuple[str, str] | None = None
        self._mark: str | None = None
        self._text: list[str] = []
        self._mark_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and a.get("class") == "atable":
            self.tables += 1
        elif tag in ("td", "th") and self.tables:
            self._cell, self._text = (tag, a.get("class") or ""), []
        elif tag == "mark":
            self._mark, self._mark_text = a.get("class") or "", []

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._text.append(data)
        if self._mark is not None:
            self._mark_text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append((*self._cell, "".join(self._text)))
            self._cell = None
        elif tag == "mark" and self._mark is not None:
            self.marks.append((self._mark, "".join(self._mark_text)))
            self._mark = None


def test_an_articles_table_is_an_html_table_with_the_kept_cell_and_its_headers_marked(
    monkeypatch: pytest.MonkeyPatch, fakes, fake_factory, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    small = {"revenue": ["$142.9 million", "$120.5 million", "$142.9 million"], "units": "13,200"}
    fakes["fake-small"] = FakeBackend("fake-small", keyword_script(small))
    fakes["fake-large"] = FakeBackend("fake-large", keyword_script(small | {"revenue": "142.9"}))
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    arts, qs = write_corpus(tmp_path, beta=TABLE_ARTICLE, questions=TABLE_QUESTIONS)
    html = html_page(arts, qs, 3, tmp_path / "t").read_text(encoding="utf-8")
    beta = html[html.index('data-qid="beta-1"') :]
    parsed = Cells()
    parsed.feed(beta)
    assert parsed.tables == 1
    assert [c for c in parsed.cells if c[1]] == [
        ("th", "kept-col-head", "2019"),
        ("td", "kept-row-head", "Revenue"),
        ("td", "kept-cell", "142.9"),
    ]
    assert [c[2] for c in parsed.cells][:6] == ["", "2019", "2018", "Revenue", "142.9", "120.5"]
    # the kept cell's mark, and another sample's confirming cell still highlighted; the bare
    # "142.9" of the prose is not "$142.9 million" (no table, no scale), so it is not evidence
    assert parsed.marks == [("kept", "142.9"), ("span", "120.5")]
    assert "| Revenue |" not in beta and "|---|" not in beta  # no pipe text for the table
    # a hostile cell stays text
    assert r"&lt;b&gt;Note&lt;/b&gt; \| &lt;script&gt;alert(2)&lt;/script&gt;" in beta
    assert "<script>alert(2)" not in html and "<b>Note" not in html
    texts = {a.id: a.text for a in load_articles(arts).values()}
    page = Page()
    page.feed(html)
    for mark in page.marks:
        start, end = int(mark["data-start"]), int(mark["data-end"])  # type: ignore[arg-type]
        body = texts["alpha"] if mark["id"].startswith("q0-") else texts["beta"]  # type: ignore[union-attr]
        assert body[start:end] == mark["text"]


def test_a_derived_answer_is_kept_by_small_derived_and_its_operands_are_marked(
    monkeypatch: pytest.MonkeyPatch, fakes, fake_factory, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    # sales beat the target by 13,200 - 10,000 = 3,200: computed, not written in the article
    fakes["fake-small"] = FakeBackend(
        "fake-small", keyword_script({**SMALL_ANSWERS, "beat": "3,200 = 13,200 - 10,000"})
    )
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    questions = (
        QUESTIONS.split("\n", 1)[0]
        + ",computed\n"
        + ('alpha-5,alpha,By how much did the first month beat the target?,"3,200",figure,true\n')
    )
    arts, qs = write_corpus(tmp_path, questions=questions)
    args = run_args(
        arts, qs, "fake-small", "fake-large", 2, tmp_path / "h", "d", "--prompt", "derive"
    )
    res = runner.invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    run = tmp_path / "h" / "d"
    attempts = pd.read_csv(run / "attempts.csv", dtype=str, keep_default_na=False)
    small = attempts[attempts.role == "small"]
    assert set(small.derived) == {"true"} and set(small.working) == {"13,200 - 10,000"}
    questions_csv = pd.read_csv(run / "questions.csv", dtype=str, keep_default_na=False)
    assert questions_csv["small-derived@2.correct"].str.lower().tolist() == ["true"]
    assert questions_csv["small-verified@2.correct"].str.lower().tolist() == ["false"]
    res = runner.invoke(cli.app, ["report", str(run), "--html"])
    assert res.exit_code == 0, res.output
    parsed = Page()
    parsed.feed((run / "report.html").read_text(encoding="utf-8"))
    assert {m["text"] for m in parsed.marks} >= {"13,200", "10,000"}
