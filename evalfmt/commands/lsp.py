"""``evalfmt lsp``: the language server, over stdio."""

from __future__ import annotations

import click

from ..errors import EvalfmtError


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Talk over stdin/stdout (the default and only transport; editors pass it).")
def command(stdio: bool) -> int:
    """Run the evalfmt language server over stdin/stdout for an editor: the findings of `evalfmt lint`
    as you type (same rules, configuration and noqa comments), the rule's explanation on hover, and
    quick fixes (every --fix fix, and a noqa comment). Needs the extra: pip install 'evalfmt[lsp]'.
    Editor set-up: docs/editors.md.
    """
    try:
        from ..lsp.server import serve
    except ImportError as exc:
        raise EvalfmtError(f"the language server needs pygls and lsprotocol ({exc.name} is missing): "
                           "pip install 'evalfmt[lsp]'") from None
    serve()
    return 0
