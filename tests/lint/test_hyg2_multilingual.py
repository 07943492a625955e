"""HYG2 on multilingual text: honest prose in many languages passes, every homoglyph inside one word
still fails (docs/rules.md, docs/lint.md "Differences from terum's hygiene"). The prose below was
written for this test; the attacks are the shapes look-alike letters take in practice."""

from __future__ import annotations

import pytest

from evalfmt.lint.rules.hygiene import mixed_script_word

SKILL_MD = "---\nname: notes\ndescription: Writes release notes in the user's language.\n---\nWrite the notes.\n"

#: file -> text; each must pass HYG2
CORPUS = {
    "evals/cases/zh.yaml": (
        "task: 请检查跨Agent矛盾，并把结果写进CHANGELOG.md（参见 https://example.com/docs/发布说明）。\n"
        "judge: 回答要提到Git标签v2.1和CI流水线；链接https://example.com/指南后面紧跟中文也没问题。\n"),
    "evals/cases/ja.yaml": (
        "task: リリースノートを日本語で書いてください。Pythonで書かれたスクリプトは変更しないこと。\n"
        "judge: GitHubのプルリクエスト番号（#42）とAPI変更点がまとまっていること。\n"),
    "evals/cases/ko.yaml": "task: 변경 사항을 한국어로 정리해 주세요. Python으로 작성된 CLI도 포함합니다.\n",
    "evals/cases/uk.yaml": (
        "task: Підготуй PDF-звіт про реліз і додай посилання Wikipedia/Вікіпедія та API-ключі (без значень).\n"
        "judge: У звіті є розділ «CI/CD» та згадка про Git-тег.\n"),
    "evals/cases/ru.yaml": (
        "task: Опиши изменения в README.md и в модуле auth/вход; e-mail-уведомления не трогай.\n"
        "judge: Упомянуты JSON-схема, SQL-запросы и URL https://example.com/путь.\n"),
    "evals/cases/el.yaml": "task: Γράψε τις σημειώσεις έκδοσης για το API v3 και το SDK της Python.\n",
    "evals/cases/ar.yaml": "task: اكتب ملاحظات الإصدار لواجهة API الجديدة ومكتبة Python، مع رابط GitHub.\n",
    "evals/cases/he.yaml": "task: כתוב הערות שחרור עבור ה-API החדש ועבור ספריית Python.\n",
    "evals/cases/hi.yaml": "task: API के नए संस्करण के लिए रिलीज़ नोट्स लिखें और GitHub लिंक जोड़ें।\n",
    "evals/cases/th.yaml": "task: เขียนบันทึกการเปลี่ยนแปลงของAPIเวอร์ชันใหม่และไลบรารีPython\n",
    "evals/cases/vi.yaml": "task: Viết ghi chú phát hành cho API mới và thư viện Python bằng tiếng Việt.\n",
    "evals/cases/de-fr-pl.yaml": (
        "task: Schreib die Änderungen für Straße-Modul; écris les notes en français naïf; Zażółć gęślą jaźń.\n"),
    "docs/mixed.md": (
        "# Notes / Примечания / 说明\n\nThe café's naïve résumé (e\u0301te\u0301 decomposed) — Ελληνικά, 日本語, "
        "한국어, العربية.\nTerms: Kubernetes-кластер, Docker/容器, CI/CD流程, JSON→YAML, «quotes», „Zitat“.\n"),
}

#: (text, the offending word, its scripts as the message names them)
ATTACKS = [
    ("Review the payp\u0430l webhook.", "payp\u0430l", "Latin and Cyrillic"),
    ("Open g\u043e\u043egle docs.", "g\u043e\u043egle", "Latin and Cyrillic"),
    ("Visit micr\u043es\u043eft.com today.", "micr\u043es\u043eft", "Latin and Cyrillic"),
    ("\u0397ello world.", "\u0397ello", "Greek and Latin"),
    ("Run \u0430pt-get update.", "\u0430pt", "Cyrillic and Latin"),
    ("Use the \u0561pple key.", "\u0561pple", "Armenian and Latin"),
    ("The \u13aamazon bucket.", "\u13aamazon", "Cherokee and Latin"),
    ("A payp\u0301\u0430\u0301l link.", "payp\u0301\u0430\u0301l", "Latin and Cyrillic"),  # combining marks
    ("A payp\u00ad\u0430\u00adl link.", "payp\u00ad\u0430\u00adl", "Latin and Cyrillic"),  # soft hyphens
    ("A payp\u115f\u0430\u115fl link.", "payp\u115f\u0430\u115fl", "Latin and Cyrillic"),  # Hangul fillers
    ("跨payp\u0430l矛盾", "payp\u0430l", "Latin and Cyrillic"),  # next to Chinese
    ("PDF-звi\u0442", "звiт", "Cyrillic and Latin"),  # a Latin i inside the Cyrillic word
    ("Καλημέρα κóσμε", "κóσμε", "Greek and Latin"),  # a Latin ó in a Greek word
    ("adm\u0456n/login", "adm\u0456n", "Latin and Cyrillic"),  # Ukrainian і
    ("x\u03bfr\u0430", "x\u03bfr\u0430", "Latin and Greek (and more)"),  # three scripts
]


def skill(tmp_path, files: dict[str, str]):
    root = tmp_path / "notes"
    for rel, text in {"SKILL.md": SKILL_MD, **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_the_multilingual_corpus_passes(run_cli, tmp_path):
    skill(tmp_path, CORPUS)
    assert run_cli("lint", "--isolated", "--select", "HYG2", "-q", "notes", cwd=str(tmp_path)) == (0, "", "")
    for text in CORPUS.values():
        assert mixed_script_word(text) is None


@pytest.mark.parametrize("text,word,scripts", ATTACKS, ids=[a[1] for a in ATTACKS])
def test_homoglyphs_inside_a_word_still_fail(run_cli, tmp_path, text, word, scripts):
    # the attack in the middle of honest prose: one finding, at the word
    prose = CORPUS["evals/cases/uk.yaml"].rstrip("\n") + " " + text + "\n"
    skill(tmp_path, {"evals/cases/a.yaml": prose})
    at = prose.index(word)
    line, col = prose.count("\n", 0, at) + 1, at - prose.rfind("\n", 0, at)
    code, out, err = run_cli("lint", "--isolated", "--select", "HYG2", "-q", "notes", cwd=str(tmp_path))
    assert (code, err) == (1, "")
    assert out == (f"notes/evals/cases/a.yaml:{line}:{col}: HYG2 word '{word}' mixes {scripts} letters (a look-alike "
                   "letter?): write it in one script\n")


@pytest.mark.parametrize("text", ["跨Agent矛盾", "https://example.com/文档", "PDF-звіт", "Wikipedia/Вікіпедія",
                                  "日本語のテキスト", "Pythonで書く", "Python으로", "ภาษาPython", "Вікіпедія中文",
                                  "COVID-19疫情", "l'Агентство", "ё-мобиль"])
def test_script_changes_at_boundaries_pass(text):
    assert mixed_script_word(text) is None


WORDS = ["release", "notes", "Python", "звіт", "реліз", "Вікіпедія", "Ελληνικά", "κείμενο", "日本語", "テキスト",
         "한국어", "العربية", "עברית", "हिन्दी", "ภาษา", "café", "naïve", "Zażółć", "straße"]
SEPARATORS = [" ", "-", "/", ":", ".", "—", "(", ")", "«", "»", "、", "。", "2", "_", "\n"]
LOOKALIKES = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "x": "\u0445"}


def _prose(draw) -> str:
    from hypothesis import strategies as st

    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12))
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(words), max_size=len(words)))
    return "".join(w + s for w, s in zip(words, seps))


def test_properties():
    from hypothesis import given, settings, strategies as st

    @st.composite
    def prose(draw):
        return _prose(draw)

    @settings(max_examples=25, deadline=None)
    @given(prose())
    def honest(text):
        assert mixed_script_word(text) is None

    @settings(max_examples=25, deadline=None)
    @given(prose(), st.sampled_from(["release", "notes", "replace", "checkout"]), st.data())
    def attacked(text, word, data):
        i = data.draw(st.sampled_from([k for k, ch in enumerate(word) if ch in LOOKALIKES]))
        bad = word[:i] + LOOKALIKES[word[i]] + word[i + 1:]
        found = mixed_script_word(text + " " + bad + " " + text)
        assert found is not None and (text + " " + bad)[found[0]:found[1]] == bad

    honest()
    attacked()
