"""A realistic file mixing the torchvision, torchaudio, torchtext and torchdata forms (module aliases, from-imports,
nested calls, a flag that is not a literal, look-alike methods) migrates in one run, and a second run changes nothing."""

from __future__ import annotations

import textwrap

from torchmigrate.api import migrate_source

BEFORE = textwrap.dedent(
    """\
    import torch as th
    import torchvision
    import torchvision.models as tvm
    import torchaudio
    from torchvision import transforms
    from torchvision.transforms import v2
    from torchvision.models.utils import load_state_dict_from_url
    from torchvision.models.resnet import model_urls
    from torchvision.transforms.functional_tensor import rgb_to_grayscale
    from torchvision import datapoints
    from torchdata.datapipes.iter import IterableWrapper
    from torchtext.data.utils import get_tokenizer


    class Net(th.nn.Module):
        def __init__(self, pretrained: bool):
            super().__init__()
            self.backbone = tvm.resnet50(pretrained=True)
            self.det = torchvision.models.detection.fasterrcnn_resnet50_fpn(pretrained=False, pretrained_backbone=True)
            self.other = tvm.mobilenet_v3_small(pretrained=pretrained)
            self.norm = th.nn.LayerNorm(4)

        def forward(self, x):
            return self.norm(self.backbone(rgb_to_grayscale(x, 3)))

        def load(self, path):
            return self.pretrained(path, pretrained=True)


    state = load_state_dict_from_url(model_urls["resnet50"], map_location="cpu")
    pipe = v2.Compose([v2.RandomResizedCrop(224), v2.ToTensor(), v2.Normalize([0.5], [0.5])])
    single = v2.ToImageTensor()
    img = datapoints.Image(th.zeros(3, 4, 4))
    wave, sr = torchaudio.load("a.wav", normalize=False)
    meta = torchaudio.info("a.wav")
    frames = torchvision.io.read_video("x.mp4")
    dp = IterableWrapper(range(3))
    tok = get_tokenizer("basic_english")
    m = tvm.vgg16(True)
    t = transforms.Compose([transforms.Resize(224, interpolation=2), transforms.ToTensor()])
    """
)

AFTER = textwrap.dedent(
    """\
    import torch as th
    import torchvision
    import torchvision.models as tvm
    import torchaudio
    from torchvision import transforms, tv_tensors
    from torchvision.transforms import v2
    from torch.hub import load_state_dict_from_url
    from torchvision.transforms.functional import rgb_to_grayscale
    from torchdata.datapipes.iter import IterableWrapper
    from torchtext.data.utils import get_tokenizer


    class Net(th.nn.Module):
        def __init__(self, pretrained: bool):
            super().__init__()
            self.backbone = tvm.resnet50(weights=tvm.ResNet50_Weights.IMAGENET1K_V1)
            self.det = torchvision.models.detection.fasterrcnn_resnet50_fpn(weights=None, weights_backbone=torchvision.models.ResNet50_Weights.IMAGENET1K_V1)
            self.other = tvm.mobilenet_v3_small(pretrained=pretrained)
            self.norm = th.nn.LayerNorm(4)

        def forward(self, x):
            return self.norm(self.backbone(rgb_to_grayscale(x, 3)))

        def load(self, path):
            return self.pretrained(path, pretrained=True)


    state = load_state_dict_from_url(torchvision.models.ResNet50_Weights.IMAGENET1K_V1.url, map_location="cpu")
    pipe = v2.Compose([v2.RandomResizedCrop(224), v2.ToImage(), v2.ToDtype(th.float32, scale=True), v2.Normalize([0.5], [0.5])])
    single = v2.ToImage()
    img = tv_tensors.Image(th.zeros(3, 4, 4))
    wave, sr = torchaudio.load("a.wav", normalize=False)
    meta = torchaudio.info("a.wav")
    frames = torchvision.io.read_video("x.mp4")
    dp = IterableWrapper(range(3))
    tok = get_tokenizer("basic_english")
    m = tvm.vgg16(weights=tvm.VGG16_Weights.IMAGENET1K_V1)
    t = transforms.Compose([transforms.Resize(224, interpolation=2), transforms.ToTensor()])
    """
)

# (line in BEFORE, pass): what stays for the maintainer
FINDINGS = [
    (11, "torchdata-datapipes"),
    (12, "torchtext-retired"),
    (20, "torchvision-pretrained"),  # pretrained=<a variable>
    (34, "torchaudio-load-save-torchcodec"),
    (35, "torchaudio-removed-apis"),
    (36, "torchvision-video-io"),
]


def test_one_run_then_nothing() -> None:
    first = migrate_source(BEFORE, to="2.12", from_="1.9", unsafe_fixes=True)
    assert first.error is None
    assert first.code == AFTER
    assert sorted((f.line, f.pass_id) for f in first.findings) == FINDINGS
    # only v2.ToTensor's rewrite is a review edit: without unsafe fixes the rest is applied all the same
    assert {(e.pass_id, e.safety) for e in first.edits if e.safety != "safe"} == {("torchvision-v2-to-tensor", "review")}
    second = migrate_source(first.code, to="2.12", from_="1.9", unsafe_fixes=True)
    assert second.error is None and second.code == first.code and not second.edits
    # the same findings, on the lines of the migrated text
    assert sorted(f.pass_id for f in second.findings) == sorted(p for _, p in FINDINGS)


def test_below_the_releases_nothing_changes() -> None:
    result = migrate_source(BEFORE, to="1.9", from_="1.8")
    assert result.code == BEFORE and not result.findings
