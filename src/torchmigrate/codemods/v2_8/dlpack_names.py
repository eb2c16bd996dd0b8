"""`DLDeviceType.kDLGPU` and `kDLCPUPinned` were renamed in PyTorch 2.8 (DLPack 1.0).

## What it does
Renames the two `torch.utils.dlpack.DLDeviceType` members that DLPack 1.0 renamed:
`kDLGPU` → `kDLCUDA` and `kDLCPUPinned` → `kDLCUDAHost`, however the enum is reached
(`torch.utils.dlpack.DLDeviceType.kDLGPU`, `from torch.utils.dlpack import DLDeviceType`, an alias).

## Why
PyTorch upgraded to DLPack 1.0 (pytorch/pytorch#145000; listed as BC-breaking in the 2.8 release notes and again
in the 2.9 notes). On torch 2.13 `DLDeviceType` is a Python `IntEnum` in `torch.utils.dlpack` with members
`kDLCPU, kDLCUDA, kDLCUDAHost, kDLOpenCL, kDLVulkan, kDLMetal, kDLVPI, kDLROCM, kDLROCMHost, kDLExtDev,
kDLCUDAManaged, kDLOneAPI, kDLWebGPU, kDLHexagon, kDLMAIA`: the old names raise `AttributeError`.

## Fix safety
Safe: the renamed members carry the same DLPack device codes (`kDLCUDA == 2`, `kDLCUDAHost == 3`, as `kDLGPU` and
`kDLCPUPinned` had), only the names changed.
"""

from __future__ import annotations

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass

PASS = Pass(
    id="dlpack-names",
    release="2.8",
    since="2.9",
    safety=SAFE,
    kind=REMOVAL,
    title="DLDeviceType.kDLGPU / kDLCPUPinned → kDLCUDA / kDLCUDAHost",
    evidence=(
        "PyTorch 2.8 release notes, BC-breaking 'Upgraded DLPack to 1.0' (pytorch/pytorch#145000)"
        "; since 2.9: kDLCUDA/kDLCUDAHost first ship in 2.9 (torch 2.9.1 wheel, torch/utils/dlpack.py:17); the 2.8.0 "
        "wheel still has kDLGPU (torch/utils/dlpack.py:19) despite the 2.8 notes"
    ),
    renames={
        "torch.utils.dlpack.DLDeviceType.kDLGPU": "torch.utils.dlpack.DLDeviceType.kDLCUDA",
        "torch.utils.dlpack.DLDeviceType.kDLCPUPinned": "torch.utils.dlpack.DLDeviceType.kDLCUDAHost",
    },
    examples=[
        Example(
            title="from-imported enum",
            before="""
                from torch.utils.dlpack import DLDeviceType

                d1 = DLDeviceType.kDLGPU
                d2 = DLDeviceType.kDLCPUPinned
            """,
            after="""
                from torch.utils.dlpack import DLDeviceType

                d1 = DLDeviceType.kDLCUDA
                d2 = DLDeviceType.kDLCUDAHost
            """,
        ),
        Example(
            title="full path and import torch as th",
            before="""
                import torch as th

                if dev == th.utils.dlpack.DLDeviceType.kDLGPU:
                    pass
            """,
            after="""
                import torch as th

                if dev == th.utils.dlpack.DLDeviceType.kDLCUDA:
                    pass
            """,
        ),
        Example(
            title="aliased enum",
            before="""
                from torch.utils.dlpack import DLDeviceType as DT

                kinds = {DT.kDLGPU: 'cuda', DT.kDLCPU: 'cpu'}
            """,
            after="""
                from torch.utils.dlpack import DLDeviceType as DT

                kinds = {DT.kDLCUDA: 'cuda', DT.kDLCPU: 'cpu'}
            """,
        ),
        Example(
            title="another library's enum of the same name is not touched",
            before="""
                from mylib.dlpack import DLDeviceType

                d = DLDeviceType.kDLGPU
            """,
        ),
    ],
)
