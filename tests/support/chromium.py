"""Headless Chromium for the HTML report tests: find it (or install Debian's ``chromium`` when that is possible),
dump a page's DOM after layout, take a screenshot.

Run as a script to refresh the README's screenshot of a report:
``python tests/support/chromium.py screenshot REPORT.html docs/report.png``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import pytest

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--disable-extensions",
)


def _found() -> str | None:
    return next((path for path in map(shutil.which, NAMES) if path), None)


def chromium_or_skip() -> str:
    """The Chromium binary; installs Debian's ``chromium`` with apt-get when absent and possible, else skips."""
    found = _found()
    if found is not None:
        return found
    apt = shutil.which("apt-get")
    if apt is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("headless Chromium is not installed and cannot be installed here (needs apt-get as root): "
                    "`apt-get install -y chromium` to run the HTML report tests")
    try:
        subprocess.run([apt, "install", "-y", "-q", "chromium"], capture_output=True, timeout=600, check=True,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    except (subprocess.SubprocessError, OSError) as exc:
        pytest.skip(f"headless Chromium is not installed and `apt-get install -y chromium` failed: {exc}")
    found = _found()
    if found is None:
        pytest.skip("`apt-get install -y chromium` ran but no chromium binary is on PATH")
    return found


def _run(binary: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        return subprocess.run(
            [binary, *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )


def dump_dom(binary: str, page: Path, width: int = 1280, height: int = 2000) -> str:
    """The page's DOM after load (and after any script in it ran), as Chromium serialises it."""
    proc = _run(binary, f"--window-size={width},{height}", "--virtual-time-budget=3000", "--dump-dom", page.resolve().as_uri())
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    return proc.stdout.decode("utf-8")


def screenshot(binary: str, page: Path, out: Path, width: int = 1280, height: int = 1500) -> Path:
    """A PNG of the first ``width`` × ``height`` pixels of the page."""
    proc = _run(binary, f"--window-size={width},{height}", f"--screenshot={out.resolve()}", page.resolve().as_uri())
    assert proc.returncode == 0 and out.exists(), proc.stderr.decode(errors="replace")[-2000:]
    return out


def png_pixels(path: Path) -> tuple[int, int, bytes]:
    """(width, height, RGB bytes row by row) of an 8-bit, non-interlaced RGB or RGBA PNG such as Chromium writes
    (alpha dropped). Enough PNG to count a screenshot's colours without an imaging library."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, chunks, header = 8, [], b""
    while pos < len(data):
        length = int.from_bytes(data[pos : pos + 4], "big")
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
    width, height = int.from_bytes(header[:4], "big"), int.from_bytes(header[4:8], "big")
    depth, colour, interlace = header[8], header[9], header[12]
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unsupported PNG (depth {depth}, colour {colour})"
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * bpp
    previous = bytearray(stride)
    rows = []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous, strict=True))
        elif kind == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + previous[x]) >> 1)) & 0xFF
        elif kind == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b, c = previous[x], previous[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line) if bpp == 3 else bytes(v for i, v in enumerate(line) if i % 4 != 3))
        previous = line
    return width, height, b"".join(rows)


def count_colour(pixels: bytes, hex_colour: str) -> int:
    """How many pixels of an RGB byte string are exactly ``#rrggbb``."""
    wanted = bytes.fromhex(hex_colour.lstrip("#"))
    return sum(1 for i in range(0, len(pixels), 3) if pixels[i : i + 3] == wanted)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "screenshot":
        sys.exit("usage: python tests/support/chromium.py screenshot REPORT.html OUT.png")
    binary = _found()
    if binary is None:
        sys.exit("no chromium on PATH: apt-get install -y chromium")
    screenshot(binary, Path(sys.argv[2]), Path(sys.argv[3]))
