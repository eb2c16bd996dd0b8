"""``--report-html FILE`` through the real command, read as a reader sees it: rendered by headless Chromium.

A copy of the page gets a probe script (the report itself has none) that records what the browser laid out: the text
on screen, the chart's bars, where each review note sits beside its diff, the findings' links, and any resource the
page tried to load; ``--dump-dom`` carries that record out. A screenshot proves the chart is drawn.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from support import chromium, cli

from torchmigrate.core.registry import get_pass
from torchmigrate.output.html import EDIT_COLOUR, FINDING_COLOUR

EXPORT = (
    "import torch\n"
    "from torch.export import export_for_inference as efi\n"
    "\n"
    "def export(model, x, table):\n"
    "    return torch.export.export_for_inference(model, (x,), decomp_table=table), efi(model, (x,))\n"
)
KWARGS = "import torch\n\nep = torch.export.export_for_inference(m, a, **kw)\n"  # a finding at 3:6
CLOSE = "import torch\n\ndef test_close(out, ref):\n    torch.testing.assert_allclose(out, ref, 1e-3, 1e-5)\n"  # review

PROBE = """<script>
const box = (el) => { const b = el.getBoundingClientRect(); return {x: b.left, y: b.top, w: b.width, h: b.height}; };
const record = {
  text: document.body.innerText,
  resources: performance.getEntriesByType('resource').map(e => e.name),
  sheets: [...document.styleSheets].map(s => s.href),
  bars: [...document.querySelectorAll('#chart rect.bar')].map(e =>
    ({pass: e.dataset.pass, kind: e.classList[1], count: +e.dataset.count, ...box(e)})),
  rows: [...document.querySelectorAll('#pass-table tbody tr')].map(tr => [...tr.cells].map(c => c.innerText.trim())),
  hunks: [...document.querySelectorAll('.hunk')].map(h => ({
    file: h.closest('section.file').querySelector('h3').innerText,
    diff: box(h.querySelector('pre')), diffText: h.querySelector('pre').innerText,
    notes: [...h.querySelectorAll('.note')].map(n => ({pass: n.dataset.pass, text: n.innerText, ...box(n)}))})),
  findings: [...document.querySelectorAll('.pass-findings')].map(s =>
    ({pass: s.dataset.pass, links: [...s.querySelectorAll('li a.mono')].map(a => ({text: a.innerText, href: a.href}))})),
};
const out = document.createElement('pre'); out.id = 'probe'; out.textContent = JSON.stringify(record);
document.body.appendChild(out);
</script>"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fleet")
    cli.write_tree(root / "vision", {"requirements.txt": "torch>=2.7\n", "export.py": EXPORT, "kw.py": KWARGS})
    cli.write_tree(root / "audio", {"requirements.txt": "torch>=2.7\n", "test_close.py": CLOSE})
    proc = cli.run("--to", "2.12", "--unsafe-fixes", "--diff", "--report-html", "report.html", "--no-progress", "vision", "audio", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(b"--- a/vision/export.py")  # the diff still goes to stdout
    return root / "report.html"


@pytest.fixture(scope="module")
def seen(report: Path) -> dict[str, Any]:
    binary = chromium.chromium_or_skip()
    probed = report.with_name("probed.html")
    probed.write_text(report.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = chromium.dump_dom(binary, probed)
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    record: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return record


def test_the_page_is_self_contained(report: Path) -> None:
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    for loader in ("<script", "<link", "<img", "<iframe", "@import", "url("):
        assert loader not in page, loader
    assert re.findall(r'\bsrc="', page) == []
    hrefs = re.findall(r'href="([^"]*)"', page)
    assert hrefs and all(h.startswith(("#", "file:")) for h in hrefs), hrefs


def test_a_reader_sees_the_summary_options_and_repositories(seen: dict[str, Any]) -> None:
    text = seen["text"]
    assert seen["resources"] == [] and seen["sheets"] == [None]  # one inline style sheet, nothing fetched
    assert "2 repositories · 5 files scanned · 2 would change · 5 edits · 1 finding · 0 errors" in text
    assert "migrate --to 2.12 --unsafe-fixes --diff --report-html report.html --no-progress vision audio" in text
    assert re.search(r"Review-level edits\s+applied", text), text
    assert re.search(r"vision\s+2\.7 → 2\.12\s+3\s+1\s+4\s+1\s+0", text), text


def test_counts_per_pass_and_repository_and_the_chart(seen: dict[str, Any]) -> None:
    rows = {row[0]: row[1:] for row in seen["rows"]}
    # release, then edits and findings for vision, audio, total
    assert rows["assert-allclose review"] == ["1.12", "0", "0", "1", "0", "1", "0"]
    assert rows["export-for-inference safe"] == ["2.8", "2", "1", "0", "0", "2", "1"]
    assert rows["export-for-training safe"] == ["2.11", "2", "0", "0", "0", "2", "0"]
    bars = {(b["pass"], b["kind"]): b for b in seen["bars"]}
    assert len(bars) == 6
    one, two = bars["assert-allclose", "edits"], bars["export-for-inference", "edits"]
    assert one["w"] > 0 and two["w"] == pytest.approx(2 * one["w"], abs=1)  # drawn to scale
    assert bars["export-for-inference", "findings"]["w"] == pytest.approx(one["w"], abs=1)
    assert bars["export-for-training", "findings"]["w"] == 0
    assert len({b["x"] for b in seen["bars"]}) == 1  # one baseline


def test_review_notes_sit_beside_their_diff(seen: dict[str, Any]) -> None:
    (hunk,) = [h for h in seen["hunks"] if h["file"] == "audio/test_close.py"]
    assert "-    torch.testing.assert_allclose(out, ref, 1e-3, 1e-5)" in hunk["diffText"]
    (note,) = hunk["notes"]
    assert note["pass"] == "assert-allclose" and note["text"].startswith("review assert-allclose line 4")
    assert f"What to review: {get_pass('assert-allclose').review_note}" in note["text"]
    diff = hunk["diff"]
    assert note["x"] >= diff["x"] + diff["w"] - 1  # to the right of the diff …
    assert note["y"] < diff["y"] + diff["h"] and diff["y"] < note["y"] + note["h"]  # … on the same rows
    (export,) = [h for h in seen["hunks"] if h["file"] == "vision/export.py"]
    assert {n["pass"] for n in export["notes"]} == {"export-for-inference", "export-for-training"}
    assert all("What to review" not in n["text"] for n in export["notes"])  # safe edits have nothing to review


def test_findings_are_grouped_by_pass_and_link_to_file_and_line(seen: dict[str, Any], report: Path) -> None:
    (group,) = seen["findings"]
    assert group["pass"] == "export-for-inference"
    (link,) = group["links"]
    assert link["text"] == "vision/kw.py:3:6"
    assert link["href"] == (report.parent / "vision" / "kw.py").resolve().as_uri() + "#L3"
    assert "export-for-inference (PyTorch 2.8)" in seen["text"] and "cannot be rewritten safely" in seen["text"]


def test_the_screenshot_shows_the_chart(report: Path) -> None:
    binary = chromium.chromium_or_skip()
    shot = chromium.screenshot(binary, report, report.with_name("report.png"), width=1280, height=1200)
    width, height, pixels = chromium.png_pixels(shot)
    assert (width, height) == (1280, 1200)
    edits, findings = chromium.count_colour(pixels, EDIT_COLOUR), chromium.count_colour(pixels, FINDING_COLOUR)
    # Edit bars are 5 units long in all, the finding bar 1 (plus a legend swatch each): about five times the ink.
    assert findings > 1000 and 4 < edits / findings < 6, (edits, findings)


def test_write_mode_escapes_code_and_lists_files_left_alone(tmp_path: Path) -> None:
    hostile = EXPORT.replace("import torch\n", "import torch  # </pre><script>alert(1)</script>\n", 1)
    broken = "import torch\ndef f(:\n    torch.export.export_for_inference(m, (x,))\n"
    cli.write_tree(tmp_path, {"requirements.txt": "torch>=2.7\n", "a.py": hostile, "broken.py": broken})
    proc = cli.run("--to", "2.12", "--report-html", "out/r.html", "--no-progress", ".", cwd=tmp_path, text=True)
    assert proc.returncode == 2 and "cannot write --report-html out/r.html: no writable folder out" in proc.stderr
    assert (tmp_path / "a.py").read_text() == hostile  # refused before the run: nothing written
    (tmp_path / "out").mkdir()
    proc = cli.run("--to", "2.12", "--report-html", "out/r.html", "--no-progress", ".", cwd=tmp_path, text=True)
    assert proc.returncode == 2, proc.stderr  # broken.py is an error
    page = (tmp_path / "out" / "r.html").read_text(encoding="utf-8")
    assert "<script" not in page and "# &lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Mode</dt><dd>write (files rewritten)" in page and "1 file (applied)" in page
    assert '<h2 id="errors">Files left as they were</h2>' in page and "broken.py</span>: <span class=\"error\">cannot parse" in page
