"""local-rank-argument edits ``x.add_argument("--local_rank")`` only where ``x`` is visibly an argparse parser: the one
binding of ``x`` in its scope assigns a parser (``=`` with one target, or an annotated assignment), or annotates a
parameter as one. The value is found by a walk of the scope's statements (no parent table of the whole tree): these
cases pin each binding form, in every kind of block, to an edit or to a finding."""

from __future__ import annotations

import textwrap

import pytest

from torchmigrate import migrate_source

CALL = 'parser.add_argument("--local_rank", type=int)'
EDITED = 'parser.add_argument("--local-rank", "--local_rank", type=int)'


def _run(body: str) -> tuple[str, list[str]]:
    code = "import argparse\n\n\n" + textwrap.dedent(body).lstrip("\n")
    result = migrate_source(code, to="2.12", select=["local-rank-argument"])
    assert result.error is None
    return result.code, [f.pass_id for f in result.findings]


EDITS = {
    "assignment in the function": f"""
        def get_args():
            parser = argparse.ArgumentParser()
            {CALL}
        """,
    "annotated assignment": f"""
        def get_args():
            parser: argparse.ArgumentParser = argparse.ArgumentParser()
            {CALL}
        """,
    "assignment inside if, with and try blocks": f"""
        def get_args(flag):
            with open("x") as f:
                try:
                    if flag:
                        parser = argparse.ArgumentParser()
                except ValueError:
                    pass
            {CALL}
        """,
    "assignment in a loop's else block": f"""
        def get_args(items):
            for item in items:
                pass
            else:
                parser = argparse.ArgumentParser()
            {CALL}
        """,
    "module-level parser used in a function": f"""
        parser = argparse.ArgumentParser()


        def add_args():
            {CALL}
        """,
    "module-level parser at the module level": f"""
        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            {CALL}
        """,
    "annotated parameter": f"""
        def add_args(parser: argparse.ArgumentParser) -> None:
            {CALL}
        """,
    "an argument group of a parser": """
        def get_args():
            parser = argparse.ArgumentParser()
            group = parser.add_argument_group("dist")
            group.add_argument("--local_rank", type=int)
        """,
}

FINDINGS = {
    "two targets": f"""
        def get_args():
            parser = other = argparse.ArgumentParser()
            {CALL}
        """,
    "bound twice": f"""
        def get_args(flag):
            parser = argparse.ArgumentParser()
            if flag:
                parser = make_parser()
            {CALL}
        """,
    "tuple target": f"""
        def get_args():
            parser, other = argparse.ArgumentParser(), None
            {CALL}
        """,
    "with target": f"""
        def get_args():
            with make() as parser:
                {CALL}
        """,
    "walrus target": f"""
        def get_args():
            if (parser := argparse.ArgumentParser()) is not None:
                {CALL}
        """,
    "an unknown callable": f"""
        def get_args():
            parser = make_parser()
            {CALL}
        """,
    "an unannotated parameter": f"""
        def add_args(parser):
            {CALL}
        """,
}


@pytest.mark.parametrize("body", EDITS.values(), ids=EDITS.keys())
def test_a_visible_parser_gets_the_dashed_spelling(body: str) -> None:
    code, findings = _run(body)
    assert '"--local-rank", "--local_rank"' in code
    assert findings == []


@pytest.mark.parametrize("body", FINDINGS.values(), ids=FINDINGS.keys())
def test_a_receiver_not_visibly_a_parser_is_reported_not_edited(body: str) -> None:
    code, findings = _run(body)
    assert "--local-rank" not in code
    assert findings == ["local-rank-argument"]


def test_the_edit_keeps_the_rest_of_the_call() -> None:
    code, _ = _run(EDITS["assignment in the function"])
    assert EDITED in code
