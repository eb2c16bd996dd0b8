"""Release radar: what a new PyTorch release changed that can break user code, read from the two releases' sources.

``python -m torchmigrate.radar 2.13.0 2.14.1`` downloads both wheels (``pip download --no-deps``; never installed,
never imported) — or takes two wheel files or unpacked trees — and lists public names and modules that disappeared,
functions that now only raise, new deprecation warnings (``warnings.warn``, ``FutureWarning``, ``@deprecated``) and
changed warning categories, changed signatures and defaults of public functions, removed, renamed and deprecated config
keys and changed config defaults, new errors in existing functions, and package metadata changes. ``--format
markdown`` drafts catalog rows with file:line evidence. A maintainer tool: it is how a new release is catalogued
(README, "Adding a release"). Every row it drafts is a lead to confirm on the real release, not a fact.

Modules: ``sources`` (versions, wheels, trees), ``scan`` (one release, read with ``ast``), ``compare`` (two scans →
changes), ``render`` (text, Markdown, JSON), ``api`` (:func:`~torchmigrate.radar.api.radar`), ``__main__`` (the command).
"""
