"""torchdata 0.10 removed DataPipes and DataLoader2: only `stateful_dataloader` and `nodes` remain.

## What it does
Reports (no edit) each import and use of `torchdata.datapipes` and `torchdata.dataloader2`, with the alternatives:
a `torch.utils.data` `Dataset` / `IterableDataset` with `DataLoader`; `torchdata.stateful_dataloader.StatefulDataLoader`
where the loader's position must survive a checkpoint; `torchdata.nodes` for composable pipelines; or `torchdata<=0.9`
pinned until the port is done.

## Why
"June 2024 Status Update: Removing DataPipes and DataLoader V2 … In release torchdata==0.8.0 (July 2024) they will be
marked as deprecated, and in 0.9.0 (Oct 2024) they will be deleted" (torchdata's documentation); 0.9 still shipped them
with a deprecation warning, and the 0.10 wheel (Dec 2024, between torch 2.5 and 2.6) has only `nodes` and
`stateful_dataloader` (0.11 likewise), so the imports fail.

## Fix safety
Finding only: a DataPipe graph becomes a dataset class or a `torchdata.nodes` pipeline, a port by hand.
"""

from __future__ import annotations

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass, Unchanged
from torchmigrate.python.removed import RemovedAPIs, removed_analyser

_INSTEAD = (
    "use torch.utils.data (Dataset/IterableDataset + DataLoader), torchdata.stateful_dataloader.StatefulDataLoader for "
    "resumable loading or torchdata.nodes for pipelines (or pin torchdata<=0.9)"
)
REMOVED = {
    "torchdata.datapipes": f"DataPipes were removed in torchdata 0.10: {_INSTEAD}",
    "torchdata.dataloader2": f"DataLoader2 was removed in torchdata 0.10: {_INSTEAD}",
}

PASS = Pass(
    since="1.8",
    id="torchdata-datapipes",
    release="2.6",
    package="torchdata 0.10",
    kind=REMOVAL,
    safety=SAFE,
    title="torchdata.datapipes / dataloader2 were removed in torchdata 0.10 (finding)",
    evidence="torchdata 0.9.0 wheel (datapipes, dataloader2 with deprecation_warning) and 0.10.0 / 0.11.0 wheels (only "
    "nodes, stateful_dataloader); torchdata docs 'June 2024 Status Update: Removing DataPipes and DataLoader V2'"
    "; finding only: emits no new form",
    qualnames=frozenset(REMOVED),
    examples=[
        Example(
            """
            from torchdata.datapipes.iter import FileLister, IterableWrapper
            from torchdata.dataloader2 import DataLoader2, MultiProcessingReadingService

            dp = IterableWrapper(files).shuffle()
            """,
            findings=2,
        ),
        Example(
            title="through the package",
            before="""
            import torchdata

            dp = torchdata.datapipes.iter.IterableWrapper(range(10))
            """,
            findings=1,
        ),
        Unchanged(
            """
            from torch.utils.data import IterDataPipe
            from torchdata.stateful_dataloader import StatefulDataLoader

            loader = StatefulDataLoader(ds, batch_size=8)
            """,
            title="what torchdata keeps; torch's own DataPipe classes",
        ),
    ],
)


@PASS.uses
class DataPipes(RemovedAPIs):
    REMOVED = REMOVED


PASS.analyse = removed_analyser(PASS.id, REMOVED)
