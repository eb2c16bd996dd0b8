"""Project file passes: requirements, pyproject.toml, setup.cfg/setup.py, Dockerfiles and CI files."""
