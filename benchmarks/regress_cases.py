"""Regex cases beyond tests/run/ecma_cases.py for the issue 25 item 5 evaluation (benchmarks/regress_bench.py):
each [pattern, flags, subject]; the truth is asked of Node.js when the benchmark runs (nothing here holds an
expected answer). They probe where an ECMAScript engine other than V8 may differ: lookbehind, capture resets,
case folding with and without u, the v flag, Annex B leniency, UTF-16 code units, property escapes."""

EXTRA = [
    # lookbehind beyond a fixed width (the translator refuses these as unsupported)
    [r"(?<=a+)b", "", "aab"], [r"(?<!a*)b", "", "ab"], [r"(?<=\d{1,3}x)y", "", "12xy"], [r"(?<=(a)\1)b", "", "aab"],
    [r"(?<=\1(a))b", "", "aab"], [r"(?<=^\s*)#", "", "  #"], [r"(?<=a)*b", "", "b"], [r"(?<![a-z]+)1", "", "ab1"],
    # captures reset on every iteration of a quantified group; empty checks
    [r"(?:(a)|b)*\1c", "", "abc"], [r"(?:(a)|b)+\1$", "", "ab"], [r"(a*)*b", "", "b"], [r"(a|)*\1b", "", "ab"],
    [r"(?:a|())*?\1b", "", "b"], [r"(?=(a))\1", "", "a"], [r"(?!(a)b)\1c", "", "ac"], [r"(a)|(?:b\1)", "", "b"],
    # case folding: simple folding with u, toUpperCase without
    [r"ß", "i", "\u1e9e"], [r"ß", "iu", "\u1e9e"], [r"[a-z]", "iu", "\u212a"], [r"a\b", "iu", "a\u017f"],
    [r"\W", "iu", "\u017f"], [r"\p{Lu}", "iu", "a"], [r"\P{Lu}", "iu", "A"], [r"[^\P{Lu}]", "iu", "a"],
    [r"\u01c5", "i", "\u01c6"], [r"\u03c3", "i", "\u03c2"], [r"\u0390", "iu", "\u1fd3"], [r"[^a]", "i", "A"],
    # property escapes and the v flag
    [r"\p{Script=Greek}", "u", "α"], [r"\p{sc=Grek}", "u", "a"], [r"\p{Emoji}", "u", "😀"], [r"\p{ASCII}", "u", "é"],
    [r"\p{Any}", "u", "\n"], [r"\p{L}", "v", "é"], [r"[\p{L}--[a-z]]", "v", "a"], [r"[[a-z]&&[aeiou]]", "v", "b"],
    [r"\p{RGI_Emoji}", "v", "👍🏽"], [r"^[\q{abc}]$", "v", "abc"], [r"[a&&b]", "v", "&"], [r"\p{Nope}", "u", "a"],
    [r"\p{L}", "uv", "a"],
    # Annex B leniency without u, its errors with u
    [r"[a-\d]", "", "-"], [r"[a-\d]", "u", "-"], [r"\-", "u", "-"], [r"[\-]", "u", "-"], [r"a{1,2", "", "a{1,2"],
    [r"a{1,2", "u", "a"], [r"\k<a>", "u", "k<a>"], [r"(?<a>.)\k<b>", "", "aa"], [r"\k<a>(?<a>b)", "", "b"],
    [r"(?<a>x)|(?<a>y)", "", "y"], [r"\0", "", "\x00"], [r"\00", "", "\x00"], [r"[\0]", "", "\x00"],
    [r"\07", "u", "\x07"],
    [r"[\c]", "", "c"], [r"\c", "u", "\\c"], [r"\q", "", "q"], [r"\q", "u", "q"], [r"(?=a){2}b", "", "ab"],
    [r"a{2147483648}", "", "a"], [r"a{99999999999}", "", "a"],
    # line terminators, dot, anchors
    [r"$", "m", "\u2028"], [r"^b", "m", "a\u2029b"], [r".", "", "\u2029"], [r".", "", "\x85"], [r"[^\s]", "", "\ufeff"],
    [r"^$", "m", "a\r\n\r\nb"], [r".", "su", "\u2028"],
    # UTF-16 code units without u
    [r"\ud83d", "", "😀"], [r"\ud83d", "u", "😀"], [r"^[\ud83d\ude00]$", "", "😀"], [r"^[\ud83d\ude00]$", "u", "😀"],
    [r"^[^x]$", "", "😀"], [r"^\S$", "", "😀"], [r"😀{2}", "", "😀😀"],
    [r"😀{2}", "", "😀\ude00"], [r"^.{2}$", "", "😀"],
    # names and flags
    [r"(?<𝒜>a)\k<𝒜>", "", "aa"], [r"(?<\u0061>a)\k<a>", "", "aa"], [r"a", "uv", "a"], [r"a", "gimsuyd", "A"],
    [r"(?i:a)b", "", "Ab"], [r"(?-i:a)", "i", "A"],
    # commands an eval file checks
    [r"\bnpm (ci|install)\b", "", "cd app && npm ci"], [r"^(?!.*--force).*git push", "", "git push --force"],
    [r"pnpm\s+(add|i)\s+-D", "i", "PNPM add -D vitest"], [r"\.env(\.|$)", "", "cat .env.local"],
    [r"curl .*\|\s*(ba)?sh", "", "curl -s x.sh | bash"], [r"rm\s+-[a-z]*r[a-z]*f", "", "rm -fr /tmp/x"],
]
