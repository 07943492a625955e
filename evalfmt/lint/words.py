"""Common English words: a ``transcript_mentions`` anchor that is one of these passes by luck (EV204).

The list holds the most frequent English words plus the words every agent transcript is full of
(``error``, ``done``, ``file``, ``commit``, ``test``...). Matching is case-insensitive and applies only
to an anchor that is one plain word: ``LegacyConfigLoader``, ``POOL_LEAK_4812`` or ``git tag`` are
never "common".
"""

_WORDS = """
a about above across act action actually add added after again against age ago agree ahead all allow
almost alone along already also although always am among amount an and another answer any anyone
anything appear apply are area argument around as ask asked at available away back bad base based be
became because become been before began begin behind being believe below best better between big bit
black block body book both bottom box break bring brought build built business but by call called
came can cannot car care carry case cause center certain chance change changed changes check checked
child choose city class clean clear close code cold come common company complete completed condition
consider contain content context continue control copy correct cost could country course cover create
created current cut data date day dead deal decide deep default delete deleted describe design detail
did different direct do does doing done door down draw during each early easy effect either else empty
end enough entry error errors even event ever every everything example except exist expect eye face
fact fail failed failure fall false family far fast feel few field figure file files fill final find
fine finish finished first fix fixed fixes follow following for force form found free from front full
function game gave general get give given go going good got great green group grow had half hand handle
happen hard has have he head hear heard help her here high him his hold home hope hour house how however
human idea if important in include included info information input inside instead into is issue issues
it item its itself job just keep kind knew know known large last later lead learn least leave left less
let level life light like likely line lines list little live local long look lost lot low made main make
man many mark matter may me mean means message method might mind miss missing mode model more most move
much must my name need never new next nice no none normal not note nothing now number of off often okay
ok old on once one only open option or order other our out output over own page part pass passed path
people perhaps place plan play point possible power present pretty print problem process program provide
put question quite rather read ready real really reason record red remove removed report request result
return review right room run running same save saved say second section see seem seen self send set
several shall she short should show side simple since single size small so some something sometimes soon
sorry source space start started state step still stop story success successful such support sure system
table take taken task team tell test tested tests text than thank thanks that the their them then there
these they thing things think this those though thought through time to today together told too took top
total toward tree true try turn type under understand until up update updated upon us use used user using
usual valid value values very view want warning was water way we well went were what when where whether
which while white who whole why will with within without word words work worked working world would
write written wrong yes yet you your
branch bug bugs changelog command commit commits config deploy diff directory docs documentation feature
features folder install installed log merge merged module notes package project pull push pushed readme
release released releases repo repository response script server status summary tag tags version
"""

COMMON_WORDS = frozenset(_WORDS.split())
