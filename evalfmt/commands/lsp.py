"""``evalfmt lsp``: the language server, over stdio."""

from __future__ import annotations

import sys
from importlib import metadata

import click

from ..errors import EvalfmtError


def install_hint() -> str:
    """How to get the extra, evalfmt not being on PyPI (the same words as docs/editors.md): the packages
    named as the installed distribution's metadata names them, so the line never drifts from pyproject."""
    try:
        wanted = [r.split(";")[0].strip() for r in metadata.requires("evalfmt") or [] if 'extra == "lsp"' in r]
    except metadata.PackageNotFoundError:  # a source checkout on PYTHONPATH
        wanted = []
    packages = " ".join(f"'{w}'" for w in wanted) or "pygls lsprotocol"
    return ("install evalfmt with its 'lsp' extra from where it came, its git repository "
            "(pip install \"evalfmt[lsp] @ git+<repository URL>@<tag>\") or a clone "
            "(pip install \"/path/to/clone[lsp]\"), "
            f"or add the packages to this environment: {sys.executable} -m pip install {packages}")


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Talk over stdin/stdout (the default and only transport; editors pass it).")
def command(stdio: bool) -> int:
    """Run the evalfmt language server over stdin/stdout for an editor: the findings of `evalfmt lint`
    as you type (same rules, configuration and noqa comments), the rule's explanation on hover, and
    quick fixes (every --fix fix, and a noqa comment). Needs the extra 'lsp' (evalfmt is not on PyPI):
    pip install "evalfmt[lsp] @ git+<repository URL>@<tag>", or pip install "/path/to/clone[lsp]".
    Editor set-up: docs/editors.md.
    """
    try:
        from ..lsp.server import serve  # pygls and lsprotocol: the optional dependencies of the 'lsp' extra
    except ImportError as exc:
        missing = (exc.name or "pygls").split(".")[0]
        raise EvalfmtError(f"the language server needs pygls and lsprotocol ({missing} is missing): "
                           f"{install_hint()}") from None
    serve()
    return 0
