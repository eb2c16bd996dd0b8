"""`torchvision.transforms.functional_tensor` and `functional_pil` were removed in torchvision 0.17: use `functional`.

## What it does
Renames the functions of the two removed modules to `torchvision.transforms.functional`, in imports and in uses —
`from torchvision.transforms.functional_tensor import rgb_to_grayscale` →
`from torchvision.transforms.functional import rgb_to_grayscale` (the import that broke basicsr and the many projects
built on it) — for the functions whose public counterpart takes the same arguments and, for the image type the old
module handled, calls the very same kernel: `rgb_to_grayscale`, `adjust_brightness/contrast/saturation/hue/gamma/
sharpness`, `hflip`, `vflip`, `crop`, `pad`, `invert`, `posterize`, `solarize`, `autocontrast`, `equalize`,
`normalize`, `erase`, `convert_image_dtype`, `get_dimensions`, `get_image_size`, `get_image_num_channels` (tensor),
and the PIL ones plus `to_grayscale`, `resize` and `rotate` (whose Pillow integer `interpolation` the public function
accepts and maps back unchanged).

Everything else gets a finding with what to write: `functional_tensor.resize` / `rotate` / `affine` / `perspective` /
`elastic_transform` took strings, matrices or coefficients where the public functions take an `InterpolationMode` and
angles or points (and `resize`'s `antialias` defaulted to `False` for tensors); private helpers (`_is_pil_image`,
`_assert_image_tensor`, …) have no public equivalent; an import of the module itself is reported where it stays.

## Why
Deprecated in torchvision 0.15 ("The torchvision.transforms.functional_tensor module is deprecated in 0.15 and will
be **removed in 0.17**"), removed in 0.17 (for torch 2.2): the import raises `ModuleNotFoundError`. The code moved to
the private `_functional_tensor` / `_functional_pil`.

## Fix safety
Safe: for a tensor (functional_tensor) or a PIL image (functional_pil), each renamed function of torchvision 0.28's
`transforms/functional.py` forwards its arguments unchanged to the same `_functional_tensor` / `_functional_pil`
function that the old module re-exported (`from torchvision.transforms._functional_tensor import *`, 0.16).
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.removed import RemovedAPIs

_OLD_T = "torchvision.transforms.functional_tensor"
_OLD_P = "torchvision.transforms.functional_pil"
_NEW = "torchvision.transforms.functional"

_SHARED = (
    "adjust_brightness adjust_contrast adjust_gamma adjust_hue adjust_saturation adjust_sharpness autocontrast crop "
    "equalize get_dimensions get_image_num_channels get_image_size hflip invert pad posterize solarize vflip"
).split()
TENSOR_SAFE = (*_SHARED, "convert_image_dtype", "erase", "normalize", "rgb_to_grayscale")
PIL_SAFE = (*_SHARED, "resize", "rotate", "to_grayscale")

_GONE = "removed in torchvision 0.17"
REMOVED = {
    _OLD_T: f"{_GONE}: use torchvision.transforms.functional (or transforms.v2.functional); private helpers have no public equivalent",
    _OLD_P: f"{_GONE}: use torchvision.transforms.functional (or transforms.v2.functional); private helpers have no public equivalent",
    f"{_OLD_T}.resize": f"{_GONE}; functional.resize takes an InterpolationMode, not a string, and antialias defaults to True: "
    "write F.resize(img, size, InterpolationMode.BILINEAR, antialias=False) for the old default",
    f"{_OLD_T}.rotate": f"{_GONE}; it took an affine matrix: use functional.rotate(img, angle, InterpolationMode…)",
    f"{_OLD_T}.affine": f"{_GONE}; it took an affine matrix: use functional.affine(img, angle, translate, scale, shear)",
    f"{_OLD_T}.perspective": f"{_GONE}; it took coefficients: use functional.perspective(img, startpoints, endpoints)",
    f"{_OLD_T}.elastic_transform": f"{_GONE}; functional.elastic_transform takes an InterpolationMode, not a string",
    f"{_OLD_T}.gaussian_blur": f"{_GONE}; functional.gaussian_blur(img, kernel_size, sigma) is the same for odd kernel sizes "
    "and raises for even ones",
    f"{_OLD_P}.affine": f"{_GONE}; it took an affine matrix: use functional.affine(img, angle, translate, scale, shear)",
    f"{_OLD_P}.perspective": f"{_GONE}; it took coefficients: use functional.perspective(img, startpoints, endpoints)",
}

PASS = Pass(
    since="2.0",
    id="torchvision-functional-modules",
    release="2.0",
    package="torchvision 0.15",
    kind=DEPRECATION,
    removed_in="2.2",
    safety=SAFE,  # the renames are safe; what stays is reported
    title="torchvision.transforms.functional_tensor / functional_pil → transforms.functional",
    evidence="torchvision 0.15/0.16 transforms/functional_tensor.py (deprecation warning, star re-export of "
    "_functional_tensor); removed in 0.17 (0.17 wheel has no such module); 0.28 transforms/functional.py forwarding"
    "; since 2.0: the public torchvision.transforms.functional names the 0.15 deprecation warning points to (torchvision 0.15, released with torch 2.0)",
    renames={
        **{f"{_OLD_T}.{n}": f"{_NEW}.{n}" for n in TENSOR_SAFE},
        **{f"{_OLD_P}.{n}": f"{_NEW}.{n}" for n in PIL_SAFE},
    },
    qualnames=frozenset(REMOVED),
    examples=[
        Example(
            """
            from torchvision.transforms.functional_tensor import rgb_to_grayscale

            gray = rgb_to_grayscale(img, num_output_channels=1)
            """,
            """
            from torchvision.transforms.functional import rgb_to_grayscale

            gray = rgb_to_grayscale(img, num_output_channels=1)
            """,
        ),
        Example(
            title="a module alias: the uses move, the import goes",
            before="""
            import torchvision.transforms.functional_pil as F_pil

            out = F_pil.adjust_hue(F_pil.hflip(img), 0.1)
            """,
            after="""
            from torchvision.transforms.functional import adjust_hue, hflip

            out = adjust_hue(hflip(img), 0.1)
            """,
        ),
        Example(
            title="a function whose arguments changed stays, with a finding",
            before="""
            from torchvision.transforms.functional_tensor import adjust_gamma, resize

            x = resize(adjust_gamma(img, 2.2), [224, 224], interpolation="bicubic")
            """,
            after="""
            from torchvision.transforms.functional import adjust_gamma
            from torchvision.transforms.functional_tensor import resize

            x = resize(adjust_gamma(img, 2.2), [224, 224], interpolation="bicubic")
            """,
            findings=1,
        ),
        Unchanged(
            """
            from mylib.transforms import functional_tensor as F_t
            from torchvision.transforms import functional as F

            y = F_t.rgb_to_grayscale(F.hflip(img))
            """,
            title="look-alikes and the public module",
        ),
    ],
)


@PASS.uses
class RemovedFunctionalModules(RemovedAPIs):
    REMOVED = REMOVED
