"""``evalfmt lsp``: a Language Server Protocol server for eval assets (pygls, the ``lsp`` extra).

:mod:`.analysis` holds the protocol-free work (kept free of pygls so it can be tested alone);
:mod:`.server` is the pygls glue. Nothing here is imported by the rest of evalfmt.
"""
