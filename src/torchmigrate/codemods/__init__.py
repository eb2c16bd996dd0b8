"""The passes, one folder per PyTorch release, one module per pass; shipped as ``torchmigrate.codemods``."""
