"""Run the torchvision passes' output on a real torchvision (by hand, not in CI: torchvision does not install beside the
CPU build of torch the tests use).

    python -m venv tv && tv/bin/pip install torch==2.14.1 torchvision==0.29.1 && tv/bin/pip install --no-deps -e . \
        && tv/bin/pip install libcst typer pathspec rich
    tv/bin/python tests/support/torchvision_semantic.py

For every builder in the weights table, ``builder(pretrained=True/False)`` and its migrated form must resolve the same
weights (every ``WeightsEnum.verify`` result, recorded; the model itself is not built: the first ``nn.Module``
constructed stops the call), and only the old form may warn. Then the other passes' output is run: ``v2.ToTensor()``
against ``ToImage()`` + ``ToDtype(float32, scale=True)`` on 8-bit PIL images and arrays, the functions moved out of
``functional_tensor`` and ``functional_pil`` against the private modules they re-exported, the 0.16 names, and
``model_urls`` → ``.url``.
No weights are downloaded. Prints one line per check and exits 1 on any failure.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
import PIL.Image
import torch
import torchvision
from torchvision.models import _api

from torchmigrate.api import migrate_source
from torchmigrate.codemods.torchvision import functional_modules
from torchmigrate.codemods.torchvision.model_urls import MODEL_URLS
from torchmigrate.codemods.torchvision.pretrained_weights import _DATA

FAILURES: list[str] = []


class _Stop(Exception):
    pass


def _resolved(code: str) -> tuple[list[Any], list[str]]:
    """The weights every ``verify`` returned while ``code`` ran (up to the first module built), and the warnings."""
    seen: list[Any] = []
    verify = _api.WeightsEnum.verify.__func__  # type: ignore[attr-defined]

    def recording(cls: type, obj: Any) -> Any:
        result = verify(cls, obj)
        seen.append(result)
        return result

    def stop(self: torch.nn.Module, *args: Any, **kwargs: Any) -> None:
        raise _Stop

    module_init = torch.nn.Module.__init__
    _api.WeightsEnum.verify = classmethod(recording)  # type: ignore[method-assign,assignment]
    torch.nn.Module.__init__ = stop  # type: ignore[method-assign]
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                exec(code, {})
            except _Stop:
                pass
    finally:
        _api.WeightsEnum.verify = classmethod(verify)  # type: ignore[method-assign,assignment]
        torch.nn.Module.__init__ = module_init  # type: ignore[method-assign]
    return seen, [str(w.message) for w in caught if "deprecated" in str(w.message)]


def check(name: str, ok: bool, detail: str = "") -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail and not ok else ''}")
    if not ok:
        FAILURES.append(name)


def pretrained() -> None:
    count = 0
    for qualname, entry in _DATA["builders"].items():
        for info in entry["legacy"].values():
            flag = info["flag"]
            spec = info["true"]
            values = ["False"] if spec is None or isinstance(spec, dict) and "unsupported" in spec else ["True", "False"]
            extras = [""]
            if isinstance(spec, dict) and "by" in spec:
                required = "fpn=True, " if qualname.endswith(".mobilenet_backbone") else ""  # a required keyword
                extras = [f'backbone_name="{name}", {required}' for name in sorted(spec["choices"])]
                if not extras:
                    print(f"skip {qualname}: {spec['by']}= choices not in the table (the pass reports a finding)")
            elif isinstance(spec, dict) and spec.get("kwarg") == "quantize":
                extras = ["quantize=False, ", "quantize=True, "]
            for value, extra in [(v, e) for v in values for e in extras]:
                public = entry["names"][0]  # `torchvision.models.alexnet`: the module attribute is the function
                before = f"import torchvision\nm = {public}({extra}{flag}={value})\n"
                result = migrate_source(before, to="2.13", from_="1.11", select=["torchvision-pretrained"])
                if result.findings or result.error:
                    check(f"{qualname}({flag}={value})", False, f"not migrated: {result.findings or result.error}")
                    continue
                old, old_warnings = _resolved(before)
                new, new_warnings = _resolved(result.code)
                count += 1
                check(
                    f"{qualname}({extra}{flag}={value})",
                    bool(old) and old == new and bool(old_warnings) and not new_warnings,
                    f"{old} vs {new}; warnings {old_warnings} / {new_warnings}",
                )
    print(f"{count} builder calls compared")


def to_tensor() -> None:
    from torchvision.transforms import v2

    before = "from torchvision.transforms import v2\nt = v2.ToTensor()\n"
    result = migrate_source(before, to="2.13", from_="2.0", select=["torchvision-v2-to-tensor"], unsafe_fixes=True)
    scope: dict[str, Any] = {}
    exec(result.code, scope)
    rng = np.random.default_rng(0)
    inputs = {
        "uint8 array": rng.integers(0, 256, (5, 7, 3), dtype=np.uint8),
        "RGB image": PIL.Image.fromarray(rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)),
        "L image": PIL.Image.fromarray(rng.integers(0, 256, (5, 7), dtype=np.uint8)),
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old_t = v2.ToTensor()
    check("v2.ToTensor() warns", any("deprecated" in str(w.message) for w in caught))
    for label, x in inputs.items():
        old, new = old_t(x), scope["t"](x)
        check(f"ToTensor vs ToImage+ToDtype on {label}", new.dtype == torch.float32 and torch.allclose(old, new.as_subclass(torch.Tensor)))


def functional() -> None:
    import torchvision.transforms._functional_tensor as old
    import torchvision.transforms.functional as new

    img = torch.randint(0, 256, (3, 9, 11), dtype=torch.uint8)
    flt = img.float() / 255
    calls: dict[str, tuple[Any, ...]] = {
        "adjust_brightness": (flt, 1.3), "adjust_contrast": (flt, 0.7), "adjust_saturation": (flt, 1.5),
        "adjust_hue": (flt, 0.1), "adjust_gamma": (flt, 2.2, 1.0), "adjust_sharpness": (flt, 2.0),
        "autocontrast": (flt,), "equalize": (img,), "crop": (img, 1, 2, 5, 6), "hflip": (img,), "vflip": (img,),
        "invert": (img,), "posterize": (img, 3), "solarize": (img, 128), "pad": (img, [1, 2]),
        "rgb_to_grayscale": (flt, 3), "normalize": (flt, [0.5] * 3, [0.2] * 3),
        "convert_image_dtype": (img, torch.float32), "get_dimensions": (img,), "get_image_size": (img,),
        "get_image_num_channels": (img,), "erase": (flt.clone(), 1, 1, 3, 3, torch.zeros(1)),
    }
    check("every renamed tensor function is exercised", set(calls) == set(functional_modules.TENSOR_SAFE), str(set(functional_modules.TENSOR_SAFE) ^ set(calls)))
    for name, args in calls.items():
        a, b = getattr(old, name)(*args), getattr(new, name)(*args)
        same = torch.equal(a, b) if isinstance(a, torch.Tensor) else a == b
        check(f"functional.{name} = functional_tensor.{name}", bool(same))


def functional_pil() -> None:
    import torchvision.transforms._functional_pil as old
    import torchvision.transforms.functional as new

    rng = np.random.default_rng(1)
    img = PIL.Image.fromarray(rng.integers(0, 256, (9, 11, 3), dtype=np.uint8))
    calls: dict[str, tuple[Any, ...]] = {
        "adjust_brightness": (img, 1.3), "adjust_contrast": (img, 0.7), "adjust_saturation": (img, 1.5),
        "adjust_hue": (img, 0.1), "adjust_gamma": (img, 2.2, 1.0), "adjust_sharpness": (img, 2.0),
        "autocontrast": (img,), "equalize": (img,), "crop": (img, 1, 2, 5, 6), "hflip": (img,), "vflip": (img,),
        "invert": (img,), "posterize": (img, 3), "solarize": (img, 128), "pad": (img, [1, 2]),
        "get_dimensions": (img,), "get_image_size": (img,), "get_image_num_channels": (img,),
        "to_grayscale": (img, 3), "resize": (img, [5, 6], PIL.Image.BICUBIC), "rotate": (img, 30.0, PIL.Image.BILINEAR),
    }
    check("every renamed PIL function is exercised", set(calls) == set(functional_modules.PIL_SAFE), str(set(functional_modules.PIL_SAFE) ^ set(calls)))
    for name, args in calls.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a, b = getattr(old, name)(*args), getattr(new, name)(*args)
        same = np.array_equal(np.asarray(a), np.asarray(b)) if isinstance(a, PIL.Image.Image) else a == b
        check(f"functional.{name} = functional_pil.{name} (PIL)", bool(same))


def beta_names() -> None:
    before = (
        "from torchvision.datapoints import BoundingBox, BoundingBoxFormat\n"
        "from torchvision.transforms import v2\n"
        "import torchvision.transforms.v2.functional as F\n"
        "import torch\n"
        "boxes = BoundingBox(torch.tensor([[0, 0, 2, 2]]), format=BoundingBoxFormat.XYXY, spatial_size=(4, 4))\n"
        "image = F.to_image_tensor(torch.zeros(4, 4, 3, dtype=torch.uint8).numpy())\n"
        "pil = F.to_image_pil(image)\n"
        "out = v2.Compose([v2.ToImageTensor()])(pil)\n"
    )
    result = migrate_source(before, to="2.13", from_="2.0", select=["torchvision-v2-beta-names"])
    scope: dict[str, Any] = {}
    exec(result.code, scope)
    check("0.16 names run", tuple(scope["boxes"].canvas_size) == (4, 4) and scope["out"].shape == (3, 4, 4), result.code)


def model_urls() -> None:
    count = 0
    for table, entries in MODEL_URLS.items():
        for key, member in entries.items():
            module, _, attr = table.rpartition(".")
            before = f"import {module}\nurl = {module}.{attr}[{key!r}]\n"
            result = migrate_source(before, to="2.13", from_="1.11", select=["torchvision-model-urls"])
            scope: dict[str, Any] = {}
            exec(result.code, scope)
            count += 1
            url = scope["url"]
            named = member.rpartition(".")[0].rpartition(".")[2] in result.code  # the enum the table names
            check(f"{table}[{key!r}]", named and isinstance(url, str) and url.startswith("https://") and url.endswith(".pth"), str(url))
    print(f"{count} model_urls entries resolved")


def main() -> int:
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}")
    pretrained()
    to_tensor()
    functional()
    functional_pil()
    beta_names()
    model_urls()
    print(f"{len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
