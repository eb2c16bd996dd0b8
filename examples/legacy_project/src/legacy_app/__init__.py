"""A small project written for PyTorch 2.7, used by torchmigrate's README and tests."""
