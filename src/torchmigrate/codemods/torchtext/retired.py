"""torchtext is retired: its last release, 0.18 (for torch 2.3), does not load on later torch releases.

## What it does
Reports (no edit) each import of torchtext, with the usual replacement for the part used:

| torchtext | instead |
|---|---|
| `data.utils.get_tokenizer` | your own function (`"basic_english"` lower-cases and splits off punctuation with a few regular expressions), or a tokenizer package (Hugging Face `tokenizers`, spaCy) |
| `data.metrics.bleu_score` | `torchmetrics.text.BLEUScore`, `sacrebleu`, or `nltk.translate.bleu_score.corpus_bleu` |
| `utils.download_from_url`, `extract_archive` | `torch.hub.download_url_to_file(url, path)`; `tarfile` / `zipfile` |
| `vocab` (`build_vocab_from_iterator`, `Vocab`, `GloVe`, `FastText`) | a `dict` built with `collections.Counter`; vector files loaded yourself (or with gensim) |
| `datasets` | Hugging Face `datasets` (`load_dataset("imdb")`, …) |
| `data` (`Field`, `BucketIterator`, …), `legacy` | `torch.utils.data` `Dataset` / `DataLoader` with a `collate_fn` that pads (`torch.nn.utils.rnn.pad_sequence`) |
| `transforms`, `functional`, `models`, `nn` | Hugging Face `tokenizers` / `transformers` |

## Why
torchtext's development stopped with 0.18 ("Torchtext is deprecated and the last released version will be 0.18",
its `__init__.py`), built for torch 2.3 (`Requires-Dist: torch>=2.3.0`). Its C++ extension is tied to that torch: on
torch 2.13.0 `import torchtext` fails with `OSError: … libtorchtext.so: undefined symbol …` (checked), so code that
imports it cannot move past torch 2.3.

## Fix safety
Finding only: the replacement is another library or code of your own.
"""

from __future__ import annotations

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass, Unchanged
from torchmigrate.python.removed import RemovedAPIs, removed_analyser

_WHY = "torchtext is retired (0.18, for torch 2.3, is its last release and does not load on later torch)"
REMOVED = {
    "torchtext": f"{_WHY}: replace it (tokenizers, Hugging Face datasets, torch.utils.data)",
    "torchtext.data": f"{_WHY}: use torch.utils.data Dataset/DataLoader with a padding collate_fn",
    "torchtext.legacy": f"{_WHY}: use torch.utils.data Dataset/DataLoader with a padding collate_fn",
    "torchtext.data.utils.get_tokenizer": f"{_WHY}: write the tokenizer (basic_english: lower() and a few re.sub) or use "
    "a tokenizer package (tokenizers, spaCy)",
    "torchtext.data.metrics": f"{_WHY}: compute BLEU with torchmetrics.text.BLEUScore, sacrebleu or "
    "nltk.translate.bleu_score",
    "torchtext.utils": f"{_WHY}: download with torch.hub.download_url_to_file(url, path), unpack with tarfile / zipfile",
    "torchtext.vocab": f"{_WHY}: build the vocabulary as a dict with collections.Counter; load GloVe/fastText vectors yourself",
    "torchtext.datasets": f"{_WHY}: use Hugging Face datasets (load_dataset)",
    "torchtext.transforms": f"{_WHY}: use Hugging Face tokenizers / transformers",
    "torchtext.functional": f"{_WHY}: use Hugging Face tokenizers / transformers",
    "torchtext.models": f"{_WHY}: use Hugging Face transformers",
    "torchtext.nn": f"{_WHY}: use torch.nn.MultiheadAttention or Hugging Face transformers",
}

PASS = Pass(
    since="1.8",
    id="torchtext-retired",
    release="2.4",
    package="torchtext 0.18",
    kind=REMOVAL,
    safety=SAFE,
    title="torchtext is retired and does not load past torch 2.3: replace it (finding)",
    evidence="torchtext 0.18.0 wheel (last release; Requires-Dist torch>=2.3.0; __init__.py deprecation notice); "
    "import checked on torch 2.13.0: OSError, undefined symbol in libtorchtext.so"
    "; finding only: emits no new form",
    qualnames=frozenset(REMOVED),
    examples=[
        Example(
            """
            from torchtext.data.utils import get_tokenizer
            from torchtext.vocab import build_vocab_from_iterator

            tokenizer = get_tokenizer("basic_english")
            """,
            findings=2,
        ),
        Example(
            title="the package itself",
            before="""
            import torchtext

            train = torchtext.datasets.IMDB(split="train")
            """,
            findings=1,
        ),
        Example(
            title="metrics and utilities name their own replacements",
            before="""
            from torchtext.data.metrics import bleu_score
            from torchtext.utils import download_from_url, extract_archive
            """,
            findings=2,
        ),
        Unchanged("from mylib import torchtext_compat\n\ntext = torchtext_compat.load()\n", title="look-alike"),
    ],
)


@PASS.uses
class Torchtext(RemovedAPIs):
    REMOVED = REMOVED


PASS.analyse = removed_analyser(PASS.id, REMOVED)
