"""The executor: score recorded agent sessions against eval checks, compare arms, write receipts.

Layers (import top-down only): ``session`` (the normalised session model) and ``transcripts``
(readers, a registry of session sources) -> ``ecmaregex``, ``shell``, ``sandboxfs``, ``detect``,
``assertions`` -> ``checks`` (one case against one session) -> ``triggers``, ``verdict``, ``judges``
-> ``compare`` (arms, rows, verdict) -> ``receipt``. Every public function takes IR objects and
sessions and returns plain dataclasses; nothing here prints. See docs/scoring.md and docs/receipts.md.
"""
