"""HYG1-HYG8: terum's hygiene checks on a skill folder, with terum's triggers, exemptions, thresholds
and severities (``terum-skills`` ``hygiene.ts``; see ``docs/lint.md`` for the few deliberate
differences). What differs on purpose is the output: every finding has a line and a column, and a
check that terum reports once per folder with a count (HYG8) is reported once per offending token.

HYG2, HYG3 and HYG4 look at each file (of the whole folder when the folder is linted, or at the files
given); HYG1, HYG5-HYG8 need the folder and run when it (or its SKILL.md) is linted.
"""

from __future__ import annotations

import bisect
import os
import re
import unicodedata

from ...errors import Pos
from ...fsview import View
from ...guard import contains
from ...paths import repository
from .. import _scripts
from ..context import Context, SkillFolder, offset_to_pos
from ..registry import Rule

ALLOWED_KEYS = ("name", "description", "license", "metadata", "allowed-tools")
ALLOWED_EXTENSIONS = {".md", ".txt", ".json", ".yaml", ".yml", ".csv", ".toml", ".xml", ".html", ".css", ".js",
                      ".ts", ".py", ".sh", ".sql", ".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf"}
UUID = re.compile(r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}"
                  r"|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$")
SKILL_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
INVISIBLE = re.compile("[\u202a-\u202e\u2066-\u2069\u200b-\u200d\u2060\ufeff]")
#: JavaScript's \s (what terum's /\S+/gu splits tokens on)
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
TOKEN = re.compile(f"[^{_JS_SPACE}]+")
#: the same characters one by one (a set for tests of one character; a string for ``str.strip``,
#: which is JavaScript's ``String.prototype.trim``)
_JS_SPACE_SET = frozenset("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff" +
                          "".join(map(chr, range(0x2000, 0x200b))))
_JS_SPACE_CHARS = "".join(sorted(_JS_SPACE_SET))
CREDENTIALS = (
    re.compile(r"ghp_[A-Za-z0-9]{20,}"),
    re.compile(r"github_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"sk-ant-[A-Za-z0-9_-]{10,}"),
    re.compile(r"AKIA[0-9A-Z]{16}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),  # a match only with an END line after it: see _pem
    re.compile(r"Bearer\s+eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"),
)
_PEM_END = re.compile(r"-----END [A-Z ]*PRIVATE KEY-----")
#: terum's e-mail pattern, /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, is found by :func:`emails`
#: (as a regex it rescans a long run of address characters from each of them: quadratic)
_EMAIL_LOCAL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")
_EMAIL_DOMAIN = re.compile(r"[A-Za-z0-9.-]*")
_LETTERS = re.compile(r"[A-Za-z]*")
RESERVED_SUFFIXES = (".invalid", ".test", ".example", ".local", ".localhost")
#: terum's /[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+/g: a match never ends inside a run of these
#: characters, so one may only start where a run starts (the look-behind keeps the scan linear)
DEP_TOKEN = re.compile(r"(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+")
SIZE_LIMIT = 20_000



def js_trim(text: str) -> str:
    return text.strip(_JS_SPACE_CHARS)


def emails(text: str):
    """(start, end) of each match of terum's e-mail pattern, as ``finditer`` gives them, in linear
    time: from each ``@``, the local part is the run of address characters before it (not reaching
    back into the previous match), the domain the longest run that ends in a dot and two letters."""
    last_end = 0
    at = text.find("@")
    while at >= 0:
        start = at
        while start > last_end and text[start - 1] in _EMAIL_LOCAL:
            start -= 1
        end = None
        if start < at:
            run = _EMAIL_DOMAIN.match(text, at + 1)
            assert run is not None  # the pattern matches the empty string
            run_end = run.end()
            dot = text.rfind(".", at + 2, run_end)
            while dot >= 0:  # the engine backtracks from the end of the run to the last fitting dot
                tail = _LETTERS.match(text, dot + 1)
                assert tail is not None  # the pattern matches the empty string
                letters = tail.end()
                if letters - dot - 1 >= 2:
                    end = letters
                    break
                dot = text.rfind(".", at + 2, dot)
        if end is not None:
            yield start, end
            last_end = end
            at = text.find("@", end)
        else:
            at = text.find("@", at + 1)


def _pem(text: str) -> re.Match | None:
    """terum's PEM pattern (BEGIN line, anything, END line): the first BEGIN line with an END line
    anywhere after it, found with one scan for each (the lazy middle of the regex is quadratic)."""
    begin = CREDENTIALS[4].search(text)
    return begin if begin is not None and _PEM_END.search(text, begin.end()) else None


# ------------------------------------------------------------------------------- the frontmatter


def schema_issues(md, managed_required: bool) -> list[tuple[Pos, str]]:
    """HYG1's schema over the parsed frontmatter: (position, message) per problem, [] when valid."""
    unread = _unreadable(md)
    if unread is not None:
        return [unread]
    data = md.data
    if not isinstance(data, dict):
        return [(md.pos(), "SKILL.md frontmatter must be a mapping of fields (name, description, license, "
                           "metadata, allowed-tools)")]
    out: list[tuple[Pos, str]] = []
    for key in data:
        if key not in ALLOWED_KEYS:
            out.append((md.key_pos(key), f"unknown top-level field '{key}' in SKILL.md frontmatter: only name, "
                                         "description, license, metadata and allowed-tools are allowed (custom "
                                         "fields go under metadata)"))
    for key in ("name", "description"):
        if key not in data:
            out.append((md.pos(), f"SKILL.md frontmatter needs '{key}'"))
        elif not isinstance(data[key], str):
            out.append((md.pos(key), f"SKILL.md field '{key}' must be a string"))
    if "license" in data and not isinstance(data["license"], str):
        out.append((md.pos("license"), "SKILL.md field 'license' must be a string"))
    elif "license" not in data and managed_required:
        out.append((md.pos(), "SKILL.md frontmatter needs 'license'"))
    return out + _metadata_issues(md, data, managed_required)


def _unreadable(md) -> tuple[Pos, str] | None:
    """Why the frontmatter cannot be read at all (no SKILL.md text, no frontmatter, not YAML), or None."""
    if md.text is None:
        return Pos(1, 1), "SKILL.md is missing or not UTF-8 text: a skill needs a SKILL.md with YAML frontmatter"
    if md.match is None:
        return Pos(1, 1), "SKILL.md has no YAML frontmatter: start it with a '---' block holding name and description"
    if md.error is not None:
        e = md.error
        pos = Pos(e.line + md.line_offset, e.column) if e.line else Pos(1 + md.line_offset, 1)
        return pos, f"SKILL.md frontmatter is not valid YAML: {e.message}"
    return None


def _metadata_issues(md, data: dict, managed_required: bool) -> list[tuple[Pos, str]]:
    """HYG1 on ``metadata``: a mapping whose id (a UUID), author and terum-category are strings; they (and
    it) are required when the managed fields are."""
    meta = data.get("metadata")
    if "metadata" in data and not isinstance(meta, dict):
        return [(md.pos("metadata"), "SKILL.md field 'metadata' must be a mapping")]
    if not isinstance(meta, dict):  # no 'metadata' at all
        return [(md.pos(), "SKILL.md frontmatter needs 'metadata' with id, author and terum-category")] \
            if managed_required else []
    out: list[tuple[Pos, str]] = []
    for key in ("id", "author", "terum-category"):
        if key not in meta:
            if managed_required:
                out.append((md.pos("metadata"), f"SKILL.md field 'metadata.{key}' is required"))
        elif not isinstance(meta[key], str):
            out.append((md.pos("metadata", key), f"SKILL.md field 'metadata.{key}' must be a string"))
        elif key == "id" and not UUID.match(meta[key]):
            out.append((md.pos("metadata", key), f"SKILL.md field 'metadata.id' must be a UUID, not '{meta[key]}'"))
    return out


def schema_ok(md, managed_required: bool) -> bool:
    return not schema_issues(md, managed_required)


def author_email(md, managed_required: bool) -> str | None:
    """The address HYG3 exempts: the one in ``<...>`` of metadata.author, when the schema holds."""
    if not schema_ok(md, managed_required):
        return None
    meta = md.data.get("metadata")
    author = meta.get("author") if isinstance(meta, dict) else None
    if not isinstance(author, str):
        return None
    m = re.search(r"<([^<>]+)>", author)
    return m.group(1) if m else None


def _managed(ctx, skill) -> bool:
    return ctx.options(Frontmatter).get("managed-fields") == "required"


# ---------------------------------------------------------------------------------------- rules


class Frontmatter(Rule):
    """SKILL.md frontmatter: only name, description, license, metadata and allowed-tools at the top
    level; ``name`` equal to the folder name (and 1-64 lowercase letters, digits and single hyphens);
    ``allowed-tools`` a list of strings or one comma-separated string; ``metadata.id`` a UUID.

    Why: terum refuses the skill (``validate``, ``eval`` and ``publish`` all gate on it).

    Options: ``managed-fields``: ``optional`` (the default, terum's ``eval``: ``license`` and
    ``metadata`` id/author/terum-category may be absent, as in a folder never published) or
    ``required`` (terum's ``validate`` and ``publish``).

    Fails:

        # file: SKILL.md
        ---
        name: release-notes
        description: Drafts release notes from the git history.
        version: 2
        ---
        # Release notes

    Passes:

        # file: SKILL.md
        ---
        name: sample
        description: Drafts release notes from the git history.
        metadata:
          version: 2
        ---
        # Release notes

    Fix: match ``name`` to the folder, move custom fields under ``metadata``, write ``allowed-tools``
    as a list.
    """

    code = "HYG1"
    name = "frontmatter"
    severity = "error"
    scope = "skill"
    options = {"managed-fields": "optional"}

    def check_skill(self, skill: SkillFolder, ctx: Context) -> None:
        if not skill.whole:
            return
        md = skill.md
        required = ctx.options(self)["managed-fields"] == "required"
        issues = schema_issues(md, required)
        for pos, message in issues:
            ctx.report(self, skill.skill_md, pos, message)
        if issues:
            return
        data = md.data
        name = data["name"]
        if name != skill.name:
            ctx.report(self, skill.skill_md, md.pos("name"),
                       f"SKILL.md name '{name}' does not equal the folder name '{skill.name}': make them the same")
        elif not SKILL_NAME.match(name) or len(name) > 64:
            ctx.report(self, skill.skill_md, md.pos("name"),
                       f"skill name '{name}' must be 1-64 lowercase letters, digits and single hyphens")
        tools = data.get("allowed-tools")
        if tools is not None and not isinstance(tools, str) and not (
                isinstance(tools, list) and all(isinstance(t, str) for t in tools)):
            ctx.report(self, skill.skill_md, md.pos("allowed-tools"),
                       "allowed-tools is malformed: use a YAML list of tool patterns, or one comma-separated string")


#: Scripts whose letters pass for Latin ones (Cyrillic а, Greek ο, Armenian օ, Cherokee Ꭺ), and letters
#: of scripts terum does not enumerate (None): a word mixing one of these with another script is suspect.
LOOKALIKE = frozenset({"Cyrillic", "Greek", "Armenian", "Cherokee", None})
#: Scripts with no letter that passes for a Latin, Cyrillic or Greek one: Chinese, Japanese and Korean
#: writing. Their letters separate words like punctuation does (``跨Agent矛盾`` holds the word ``Agent``).
CJK = frozenset({"Han", "Hiragana", "Katakana", "Bopomofo", "Hangul"})
#: Hangul fillers: letters that draw nothing, so they separate nothing (they stay inside the word)
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")


def suspect_mix(scripts: list) -> bool:
    """Whether the letters of one word, of these scripts, are a likely homoglyph: more than one script,
    unless Latin with one other script that has no Latin look-alikes (Latin with Thai, Arabic,
    Devanagari ...: Unicode's UTS #39 "moderately restrictive" level)."""
    if len(scripts) < 2:
        return False
    if len(scripts) == 2 and "Latin" in scripts:
        return (scripts[1] if scripts[0] == "Latin" else scripts[0]) in LOOKALIKE
    return True


#: what a character is to the script rule, as one code character: a word separator, a character that
#: stays in its word without a script, or a letter of the script ``chr(_SCRIPT0 + index)``
_SEP, _IN_WORD, _SCRIPT0 = " ", "\x00", 0x100


class _Codes(dict):
    """code point -> code character, filled on first sight (``str.translate`` asks for each new one)."""

    def __missing__(self, cp: int) -> str:
        return _code(chr(cp))


_CODE = _Codes()
#: two different scripts next to each other inside a word (characters that stay in a word may sit between)
_CHANGE = re.compile("([^ \x00])\x00*(?!\\1)[^ \x00]")


def _code(ch: str) -> str:
    names = _scripts.SCRIPTS
    v = _scripts.VALUES[bisect.bisect_right(_scripts.STARTS, ord(ch)) - 1]
    name = names[v] if 0 <= v < len(names) else None
    if ch in _JS_SPACE_SET:
        c = _SEP
    elif ch in _BLANK_LETTERS or name in ("Common", "Inherited"):
        c = _IN_WORD  # a letter of no script in particular, or one that draws nothing
    elif v < 0:
        c = _SEP if unicodedata.category(ch)[0] in "PSNZ" else _IN_WORD  # marks, format characters stay
    elif name in CJK:
        c = _SEP
    else:
        c = chr(_SCRIPT0 + v)
    _CODE[ord(ch)] = c
    return c


def _script_name(code: str):
    v = ord(code) - _SCRIPT0
    return _scripts.SCRIPTS[v] if v < len(_scripts.SCRIPTS) else None


def mixed_script_word(text: str) -> tuple[int, int, list] | None:
    """The first word whose letters mix scripts suspiciously (:func:`suspect_mix`), as (start offset,
    end offset, its scripts in order of appearance), or None.

    A word is a run of letters, with the combining marks and format characters inside it, between
    whitespace, punctuation, symbols, digits and CJK letters: ``PDF-звіт`` and ``Wikipedia/Вікіпедія``
    are two words each, ``跨Agent矛盾`` holds one (``Agent``), and ``paypаl`` (with a Cyrillic ``а``) is one.
    The text is mapped to one code per character (a word separator, a character that stays in its
    word, or a script), and only the words where the script changes are looked at."""
    if text.isascii():
        return None
    codes = text.translate(_CODE)
    pos = 0
    while True:
        m = _CHANGE.search(codes, pos)
        if m is None:
            return None
        start = codes.rfind(_SEP, 0, m.start()) + 1
        end = codes.find(_SEP, m.end())
        end = len(codes) if end < 0 else end
        run = codes[start:end]
        names = [_script_name(c) for c in sorted(set(run) - {_IN_WORD}, key=run.index)]
        if suspect_mix(names):
            return start, end, names
        pos = end


class InvisibleCharacters(Rule):
    """A bidi control or zero-width character (U+202A-U+202E, U+2066-U+2069, U+200B-U+200D, U+2060,
    U+FEFF, a leading byte-order mark included), or a word whose letters mix scripts the way a
    homoglyph does (a Cyrillic, Greek, Armenian or Cherokee letter among Latin ones), in any text file
    of the skill.

    Why: invisible characters and homoglyphs (a Cyrillic ``а`` inside a Latin word) make text read
    one way and act another; terum refuses the skill. Honest multilingual prose passes. A word is a
    run of letters (with the combining marks inside it) between whitespace, punctuation, symbols,
    digits and Chinese, Japanese or Korean characters, which have no Latin look-alikes: so
    ``PDF-звіт``, ``Wikipedia/Вікіпедія``, ``跨Agent矛盾`` and a URL followed by Chinese pass. A word
    fails when it holds two scripts and one of them has letters that pass for Latin ones (Cyrillic,
    Greek, Armenian, Cherokee, or a script terum does not list), or three scripts or more; Latin
    with Thai, Arabic, Hebrew or Devanagari in one word passes (Unicode's UTS #39 "moderately
    restrictive" level). Where this differs from terum's own wording ("a whitespace-delimited token
    whose letters span more than one script"): evalfmt splits tokens into words at punctuation and
    CJK characters and lets the harmless mixes above through, so it passes some files terum's check
    refuses; every homoglyph inside one word is still refused. Binary files (a NUL in the first 8
    KiB, or not UTF-8) are left to HYG4. One finding per file, at the first offending character or
    word.

    Fails:

        # file: evals/cases/a.yaml
        task: Review the diff for the paypаl webhook.
        checks:
          - transcript_mentions: verify_signature

    Passes:

        # file: evals/cases/a.yaml
        task: Review the diff for the paypal webhook (café, Ελληνικά, 日本語, PDF-звіт, 跨Agent矛盾 are fine).
        checks:
          - transcript_mentions: verify_signature

    Fix: delete the invisible character; rewrite the mixed-script word in one script.
    """

    code = "HYG2"
    name = "invisible-characters"
    severity = "error"
    scope = "skill"

    def check_skill(self, skill: SkillFolder, ctx: Context) -> None:
        for f in skill.files:
            text = f.text
            if text is None:
                continue
            m = INVISIBLE.search(text)
            if m:
                ch = m.group(0)
                ctx.report(self, f.path, offset_to_pos(text, m.start()),
                           f"invisible character U+{ord(ch):04X} (a bidi control or zero-width character): delete it")
                continue
            found = mixed_script_word(text)
            if found is not None:
                start, end, scripts = found
                shown = " and ".join(s or "other-script" for s in scripts[:2])
                shown += " (and more)" if len(scripts) > 2 else ""
                ctx.report(self, f.path, offset_to_pos(text, start),
                           f"word '{text[start:end][:40]}' mixes {shown} letters (a look-alike letter?): write it in "
                           "one script")


_ANY_CREDENTIAL = re.compile(r"ghp_|github_pat_|sk-ant-|AKIA|-----BEGIN|Bearer")


def credential_offset(text: str) -> int | None:
    """Offset of the first match of the first pattern (in terum's order) that matches at all."""
    if not _ANY_CREDENTIAL.search(text):
        return None
    for pattern in CREDENTIALS:
        m = _pem(text) if pattern is CREDENTIALS[4] else pattern.search(text)
        if m:
            return m.start()
    return None


def reserved_domain(domain: str) -> bool:
    if domain in ("example.com", "example.org", "example.net", "test.com", "localhost"):
        return True
    return domain.endswith(RESERVED_SUFFIXES)


def foreign_email(text: str, author: str | None) -> tuple[int, str] | None:
    """(offset, address) of the first address that is neither reserved nor the author's."""
    for start, end in emails(text):
        email = text[start:end]
        at = email.rfind("@")
        local, domain = email[:at], email[at + 1:].lower()
        if reserved_domain(domain):
            continue
        if author is not None:
            a_at = author.rfind("@")
            if a_at > 0 and local == author[:a_at] and domain == author[a_at + 1:].lower():
                continue
        return start, email
    return None


class Credentials(Rule):
    """A credential-shaped value (GitHub token, Anthropic key, AWS key id, PEM private key, bearer JWT),
    else an e-mail address that is not the author's, in any text file of the skill.

    Why: a skill is shared with a team and its evals run on other machines. terum refuses it. Exempt:
    the address inside ``<...>`` of ``metadata.author`` (when the frontmatter is valid),
    example.com/.org/.net, test.com, localhost, and domains ending .invalid, .test, .example, .local
    or .localhost. One finding per file; a credential wins over an address.

    Fails:

        # file: evals/cases/a.yaml
        task: Commit the staged changes.
        setup: git init -q && git config user.email sam@acme.io
        requires: [git]
        checks:
          - command_matching: git commit

    Passes:

        # file: evals/cases/a.yaml
        task: Commit the staged changes.
        setup: git init -q && git config user.email test@example.com
        requires: [git]
        checks:
          - command_matching: git commit

    Fix: remove the credential; use a reserved domain for fixture addresses.
    """

    code = "HYG3"
    name = "credentials"
    severity = "error"
    scope = "skill"

    def check_skill(self, skill: SkillFolder, ctx: Context) -> None:
        author = None
        author_read = False
        for f in skill.files:
            text = f.text
            if text is None:
                continue
            off = credential_offset(text)
            if off is not None:
                ctx.report(self, f.path, offset_to_pos(text, off),
                           "credential-shaped value: remove it (and revoke it if it is real)")
                continue
            if "@" not in text:
                continue
            if not author_read:
                author = author_email(skill.md, _managed(ctx, skill))
                author_read = True
            found = foreign_email(text, author)
            if found:
                whose = f"the skill author is {author}" if author else \
                    "this skill declares no metadata.author address, so no address is exempt"
                ctx.report(self, f.path, offset_to_pos(text, found[0]),
                           f"e-mail address {found[1]} is not the skill author's ({whose}): use a reserved "
                           "domain such as example.com")


class FileTypes(Rule):
    """A file whose extension is not allowlisted (``.md .txt .json .yaml .yml .csv .toml .xml .html
    .css .js .ts .py .sh .sql .svg .png .jpg .jpeg .gif .webp .pdf``; none fails), or one with an
    executable mode bit or a leading ``#!``.

    Why: terum refuses the skill; an installed skill should carry documents and data, not programs
    that run by themselves.

    Options: ``allow-executable`` (default false): waive the mode-bit and shebang findings, as terum's
    ``publish`` does with consent; the extension allowlist always applies.

    Fails:

        # file: scripts/run.sh
        #!/bin/sh
        echo hello

    Passes:

        # file: scripts/run.sh
        echo hello

    Fix: rename the file to an allowlisted extension, drop the shebang, clear the mode bit.
    """

    code = "HYG4"
    name = "file-types"
    severity = "error"
    scope = "skill"
    options = {"allow-executable": False}

    def check_skill(self, skill: SkillFolder, ctx: Context) -> None:
        allow = bool(ctx.options(self)["allow-executable"])
        for f in skill.files:
            name = f.rel.rsplit("/", 1)[-1]
            dot = name.rfind(".")
            ext = name[dot:].lower() if dot >= 0 else ""
            if not allow and f.executable:
                msg = "file has an executable mode: clear it (chmod -x)"
            elif not allow and (f.text or "").startswith("#!"):
                msg = "file begins with a shebang ('#!'): drop it"
            elif ext not in ALLOWED_EXTENSIONS:
                msg = (f"file extension {ext or '(none)'} is not allowlisted: rename it to one of "
                       ".md .txt .json .yaml .yml .csv .toml .xml .html .css .js .ts .py .sh .sql .svg .png .jpg "
                       ".jpeg .gif .webp .pdf")
            else:
                continue
            ctx.report(self, f.path, Pos(1, 1), msg)


def normalize_license(value: str) -> str:
    v = value.strip().lower()
    v = re.sub(r"^apache license(?:,)? version 2\.0$", "apache-2.0", v)
    v = re.sub(r"^mit license$", "mit", v)
    v = re.sub(r"^bsd 3-clause(?: license)?$", "bsd-3-clause", v)
    return v


def detect_license(text: str) -> str | None:
    m = re.search(r"SPDX-License-Identifier:\s*([A-Za-z0-9.+-]+)", text, re.I)
    if m:
        return normalize_license(m.group(1))
    if re.search(r"apache license[\s\S]{0,100}version 2\.0", text, re.I):
        return "apache-2.0"
    if re.search(r"\bmit license\b", text, re.I):
        return "mit"
    if re.search(r"\bbsd 3-clause\b", text, re.I):
        return "bsd-3-clause"
    return None


class LicenseAgreement(Rule):
    """The frontmatter ``license``, the team's policy licence and every bundled ``LICENSE*`` file must
    name the same licence (normalised: trimmed, case-folded, long forms of Apache-2.0, MIT and
    BSD-3-Clause mapped to their SPDX ids).

    Why: terum refuses a skill whose licences disagree. An absent frontmatter licence and an absent
    policy are nothing to conform to, never a mismatch. Checked only when the frontmatter is valid.

    Options: ``policy-license`` (the team's ``policy.skill_license``; none by default).

    Fails:

        # file: SKILL.md
        ---
        name: sample
        description: Drafts release notes from the git history.
        license: MIT
        ---
        # Sample
        # file: LICENSE
        SPDX-License-Identifier: Apache-2.0

    Passes:

        # file: SKILL.md
        ---
        name: sample
        description: Drafts release notes from the git history.
        license: MIT
        ---
        # Sample
        # file: LICENSE
        MIT License

    Fix: make the licences agree.
    """

    code = "HYG5"
    name = "license-agreement"
    severity = "error"
    scope = "skill"
    options = {"policy-license": None}

    def check_skill(self, skill: SkillFolder, ctx: Context) -> None:
        if not skill.whole or not schema_ok(skill.md, _managed(ctx, skill)):
            return
        md = skill.md
        found: list[tuple[str, str]] = []
        lic = md.data.get("license")
        if isinstance(lic, str):
            found.append((normalize_license(lic), "the frontmatter"))
        policy = ctx.options(self).get("policy-license")
        if isinstance(policy, str):
            found.append((normalize_license(policy), "the policy licence"))
        for f in skill.files:
            if re.fullmatch(r"LICENSE[^/]*", f.rel, re.I) and f.text is not None:
                detected = detect_license(f.text)
                if detected is not None:
                    found.append((detected, f.rel))
        if len({v for v, _ in found}) > 1:
            pos = md.pos("license") if "license" in md.data else Pos(1, 1)
            listed = ", ".join(f"{v} ({where})" for v, where in found)
            ctx.report(self, skill.skill_md, pos, f"licences disagree: {listed}; declare one licence everywhere")


def utf16_offset(text: str, units: int) -> int:
    """Index of the character holding UTF-16 code unit number ``units`` (0-based)."""
    n = 0
    for i, ch in enumerate(text):
        n += 2 if ord(ch) > 0xFFFF else 1
        if n > units:
            return i
    return len(text)


class DescriptionAndSize(Rule):
    """An empty ``description`` (error), or a SKILL.md longer than 20,000 UTF-16 code units (warning).

    Why: without a description there is nothing to select the skill on; a long SKILL.md costs that
    much context every time the skill loads (about 5k tokens at the limit). Size alone never blocks.

    Fails:

        # file: SKILL.md
        ---
        name: sample
        description: "   "
        ---
        # Sample

    Passes:

        # file: SKILL.md
        ---
        name: sample
        description: Drafts release notes from the git history.
        ---
        # Sample

    Fix: write a description; move reference material out of SKILL.md into files it points to.
    """

    code = "HYG6"
    name = "description-and-size"
    severity = "error"
    scope = "skill"

    def check_skill(self, skill: SkillFolder, ctx: Context) -> None:
        if not skill.whole:
            return
        md = skill.md
        text = md.text or ""
        units = len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF) if not text.isascii() else len(text)
        if units > SIZE_LIMIT:
            pos = offset_to_pos(text, utf16_offset(text, SIZE_LIMIT))
            ctx.report(self, skill.skill_md, pos,
                       f"SKILL.md is {units:,} characters, {units - SIZE_LIMIT:,} over the 20,000-character "
                       "guideline (~5k tokens): every load costs that context; move reference material out",
                       severity="warning")
        data = md.data if isinstance(md.data, dict) else {}
        desc = data.get("description")
        if not isinstance(desc, str) or not js_trim(desc):
            pos = md.pos("description") if "description" in data else Pos(1, 1)
            ctx.report(self, skill.skill_md, pos, "description must not be empty: say what the skill does and "
                                                  "when to use it")


class Category(Rule):
    """``metadata.terum-category`` is not in the team's category list (compared case-insensitively).

    Why: the marketplace gives an off-list category a bucket of its own. Advice, not an enum: it runs
    only when a category list is configured (terum: only at publish).

    Options: ``categories`` (the team's list; empty by default, which turns the rule off).

    Fails:

        # file: ../evalfmt.toml
        [rules.HYG7]
        categories = ["writing", "engineering"]
        # file: SKILL.md
        ---
        name: sample
        description: Drafts release notes from the git history.
        metadata:
          terum-category: ops
        ---
        # Sample

    Passes:

        # file: ../evalfmt.toml
        [rules.HYG7]
        categories = ["writing", "engineering"]
        # file: SKILL.md
        ---
        name: sample
        description: Drafts release notes from the git history.
        metadata:
          terum-category: Writing
        ---
        # Sample

    Fix: use one of the team's categories, or add this one to the team's list.
    """

    code = "HYG7"
    name = "category"
    severity = "warning"
    scope = "skill"
    options = {"categories": []}

    def check_skill(self, skill: SkillFolder, ctx: Context) -> None:
        cats = [str(c) for c in ctx.options(self).get("categories") or []]
        if not skill.whole or not cats or not schema_ok(skill.md, _managed(ctx, skill)):
            return
        meta = skill.md.data.get("metadata")
        cat = meta.get("terum-category") if isinstance(meta, dict) else None
        if isinstance(cat, str) and js_trim(cat) and not any(c.lower() == cat.lower() for c in cats):
            ctx.report(self, skill.skill_md, skill.md.pos("metadata", "terum-category"),
                       f"terum-category '{cat}' is not one of the team's categories ({', '.join(cats)}): change "
                       "it, or add it to the team's list")


def repo_root(start: str, fs: View) -> str | None:
    return repository(os.path.abspath(start), fs=fs) or repository(os.getcwd(), fs=fs)


class OutsideReferences(Rule):
    """The SKILL.md body names a repository path outside the skill folder.

    Why: the skill depends on a file it does not carry; an installed copy lacks it (terum's eval
    stages such files into the sandboxes, up to 20 MB). A token counts when it is shaped like a
    relative path (``a/b``), is not in the skill folder, and exists under the repository root (the
    nearest ``.git`` upward from the skill, else from the working directory); URLs and ``..`` paths
    are ignored, as are paths that exist nowhere.

    Fails:

        # file: SKILL.md
        ---
        name: sample
        description: Drafts release notes from the git history.
        ---
        Follow common/notes-template.md when you write the notes.
        # file: ../common/notes-template.md
        # Template

    Passes:

        # file: SKILL.md
        ---
        name: sample
        description: Drafts release notes from the git history.
        ---
        Follow references/notes-template.md when you write the notes.
        # file: references/notes-template.md
        # Template

    Fix: move the file into the skill folder and point at it there.
    """

    code = "HYG8"
    name = "outside-references"
    severity = "warning"
    scope = "skill"

    def check_skill(self, skill: SkillFolder, ctx: Context) -> None:
        if not skill.whole:
            return
        md = skill.md
        text = md.text
        if not text:
            return
        start = md.body_start
        body = text[start:]
        skill_dir = os.path.abspath(skill.path)
        root = None
        root_known = False
        seen: set[str] = set()
        for m in DEP_TOKEN.finditer(body):
            token = m.group(0)
            if token in seen:
                continue
            seen.add(token)
            if body[max(0, m.start() - 3):m.start()] == "://" or ".." in token.split("/"):
                continue
            local = os.path.normpath(os.path.join(skill_dir, token))
            if contains(skill_dir, local) and ctx.fs.lexists(local):
                continue
            if not root_known:
                root, root_known = repo_root(skill_dir, ctx.fs), True
            if root is None:
                return
            candidate = os.path.normpath(os.path.join(root, token))
            if contains(root, candidate) and ctx.fs.lexists(candidate):
                ctx.report(self, skill.skill_md, offset_to_pos(text, start + m.start()),
                           f"'{token}' is a repository path outside the skill folder: the skill depends on a file "
                           "it does not carry; move it into the skill folder")
