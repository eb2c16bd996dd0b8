"""torchrun-port: the premise on torch 2.13 — single-node torchrun picks a free port and exports it as MASTER_PORT."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.torchrun import torch_or_skip

from torchmigrate import migrate_source


def test_single_node_torchrun_exports_a_port_that_is_not_29500(tmp_path: Path) -> None:
    torch_or_skip()
    script = tmp_path / "worker.py"
    script.write_text("import os\nprint('PORT', os.environ['MASTER_PORT'], flush=True)\n")
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node=1", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    ports = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("PORT ")]
    assert len(ports) == 1 and ports[0].isdigit()
    assert ports[0] != "29500"  # 2.11 and earlier: always 29500 here

    # The worker-side default is harmless (MASTER_PORT is set): no finding. The launcher that assumes 29500: finding.
    worker = 'import os\nport = int(os.environ.get("MASTER_PORT", "29500"))\n'
    assert migrate_source(worker, to="2.12").findings == []
    launcher = 'import subprocess\nsubprocess.run(["torchrun", "--nproc-per-node=2", "w.py"])\nPORT = 29500\n'
    assert [f.pass_id for f in migrate_source(launcher, to="2.12").findings] == ["torchrun-port"]
    assert migrate_source(launcher, to="2.11").findings == []
