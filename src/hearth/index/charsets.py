"""Character classes where Tantivy's ``simple`` tokenizer and hearth's search analyzer differ.

Generated from tantivy 0.27 by ``tests/index/test_analysis.py``, which checks every
code point against both tokenizers and prints this module anew when they disagree
(say, a Tantivy upgrade with newer Unicode tables).
"""

#: Characters of ``schema.CHAR_SCRIPTS`` and pictographs that ``simple`` takes for letters:
#: the search analyzer makes each one a token of its own.
CUT_CHARS = (
    "\u0e01-\u0e3a\u0e40-\u0e46\u0e4d\u0e50-\u0e59\u0e81-\u0e82\u0e84"
    "\u0e86-\u0e8a\u0e8c-\u0ea3\u0ea5\u0ea7-\u0eb9\u0ebb-\u0ebd\u0ec0-\u0ec4"
    "\u0ec6\u0ecd\u0ed0-\u0ed9\u0edc-\u0edf\u1000-\u1036\u1038\u103b-\u1049"
    "\u1050-\u109d\u1100-\u11ff\u1780-\u17b3\u17b6-\u17c8\u17d7\u17dc"
    "\u17e0-\u17e9\u17f0-\u17f9\u2139\u24c2\u3005\u3007\u3021-\u3029"
    "\u3038-\u303b\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fd-\u30ff"
    "\u3131-\u318e\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97c"
    "\ua9e0-\ua9fe\uaa60-\uaa76\uaa7a-\uaa7f\uac00-\ud7a3\ud7b0-\ud7c6"
    "\ud7cb-\ud7fb\uf900-\ufa6d\ufa70-\ufad9\uff66-\uff6f\uff71-\uff9d"
    "\uffa0-\uffbe\uffc2-\uffc7\uffca-\uffcf\uffd2-\uffd7\uffda-\uffdc"
    "\U000116d0-\U000116e3\U00016fe3\U00016ff0-\U00016ff1\U0001aff0-\U0001aff3"
    "\U0001aff5-\U0001affb\U0001affd-\U0001affe\U0001b000-\U0001b122\U0001b132"
    "\U0001b150-\U0001b152\U0001b155\U0001b164-\U0001b167\U0001f170-\U0001f171"
    "\U0001f17e-\U0001f17f\U00020000-\U0002a6df\U0002a700-\U0002b739"
    "\U0002b740-\U0002b81d\U0002b820-\U0002cea1\U0002ceb0-\U0002ebe0"
    "\U0002ebf0-\U0002ee5d\U0002f800-\U0002fa1d\U00030000-\U0003134a"
    "\U00031350-\U000323af"
)

#: Letters for ``simple``, separators for the search analyzer (circled letters,
#: a few recent letters).
SIMPLE_ONLY_CHARS = (
    "\u088f\u0c5c\u0cdc\u24b6-\u24c1\u24c3-\u24e9\ua7ce-\ua7cf\ua7d2\ua7d4"
    "\ua7f1\U00010940-\U00010959\U00010ec5-\U00010ec7\U00010efa-\U00010efb"
    "\U00011b60-\U00011b67\U00011db0-\U00011ddb\U00011de0-\U00011de9"
    "\U00016ea0-\U00016eb8\U00016ebb-\U00016ed3\U00016ff2-\U00016ff6"
    "\U000187f8-\U000187ff\U00018d09-\U00018d1e\U00018d80-\U00018df2"
    "\U0001e6c0-\U0001e6de\U0001e6e0-\U0001e6f5\U0001e6fe-\U0001e6ff"
    "\U0001f130-\U0001f149\U0001f150-\U0001f169\U0001f172-\U0001f17d"
    "\U0001f180-\U0001f189\U0002b73a-\U0002b73f\U0002cea2-\U0002cead"
    "\U000323b0-\U00033479"
)

#: Separators for ``simple``, tokens or parts of words for the search analyzer
#: (combining marks, Indic viramas and nuktas, Thai and CJK punctuation).
SEARCH_ONLY_CHARS = (
    "\u00a9\u00ae\u0300-\u0344\u0346-\u0362\u0483-\u0489\u0591-\u05af\u0658"
    "\u06df-\u06e0\u06ea-\u06ec\u0740-\u074a\u07eb-\u07f3\u07fd\u0818-\u0819"
    "\u082d\u0859-\u085b\u0898-\u089f\u08ca-\u08d3\u08e0-\u08e1\u08ea-\u08ef"
    "\u093c\u094d\u0951-\u0954\u09bc\u09cd\u09fe\u0a3c\u0a4d\u0abc\u0acd"
    "\u0afd-\u0aff\u0b3c\u0b4d\u0b55\u0bcd\u0c3c\u0c4d\u0cbc\u0ccd\u0d3b-\u0d3c"
    "\u0d4d\u0dca\u0e47-\u0e4c\u0e4e-\u0e4f\u0e5a-\u0e5b\u0eba\u0ec8-\u0ecc"
    "\u0ece\u0f18-\u0f19\u0f35\u0f37\u0f39\u0f3e-\u0f3f\u0f84\u0f86-\u0f87"
    "\u0fc6\u1037\u1039-\u103a\u104a-\u104f\u109e-\u109f\u135d-\u135f"
    "\u1714-\u1715\u1734\u17b4-\u17b5\u17c9-\u17d6\u17d8-\u17db\u17dd"
    "\u180b-\u180d\u180f\u1939-\u193b\u19e0-\u19ff\u1a60\u1a75-\u1a7c\u1a7f"
    "\u1ab0-\u1abe\u1ac1-\u1acb\u1b34\u1b44\u1b6b-\u1b73\u1baa-\u1bab\u1be6"
    "\u1bf2-\u1bf3\u1c37\u1cd0-\u1cd2\u1cd4-\u1ce8\u1ced\u1cf4\u1cf7-\u1cf9"
    "\u1dc0-\u1dd2\u1df5-\u1dff\u203c\u2049\u20d0-\u20f0\u2122\u2194-\u2199"
    "\u21a9-\u21aa\u231a-\u231b\u2328\u2388\u23cf\u23e9-\u23f3\u23f8-\u23fa"
    "\u25aa-\u25ab\u25b6\u25c0\u25fb-\u25fe\u2600-\u2605\u2607-\u2612"
    "\u2614-\u2685\u2690-\u2705\u2708-\u2712\u2714\u2716\u271d\u2721\u2728"
    "\u2733-\u2734\u2744\u2747\u274c\u274e\u2753-\u2755\u2757\u2763-\u2767"
    "\u2795-\u2797\u27a1\u27b0\u27bf\u2934-\u2935\u2b05-\u2b07\u2b1b-\u2b1c"
    "\u2b50\u2b55\u2cef-\u2cf1\u2d7f\u2e80-\u2e99\u2e9b-\u2ef3\u2f00-\u2fd5"
    "\u302a-\u3030\u303d\u3099-\u309a\u3200-\u321e\u3260-\u327e\u3297\u3299"
    "\u32d0-\u32fe\u3300-\u3357\ua66f-\ua672\ua67c-\ua67d\ua6f0-\ua6f1\ua806"
    "\ua82c\ua8c4\ua8e0-\ua8f1\ua92b-\ua92d\ua953\ua9b3\ua9c0\uaa77-\uaa79"
    "\uaabf\uaac1\uaaf6\uabec-\uabed\ufe00-\ufe0f\ufe20-\ufe2f\U000101fd"
    "\U000102e0\U00010a38-\U00010a3a\U00010a3f\U00010ae5-\U00010ae6"
    "\U00010d6a-\U00010d6d\U00010efd-\U00010eff\U00010f46-\U00010f50"
    "\U00010f82-\U00010f85\U00011046\U00011070\U0001107f\U000110b9-\U000110ba"
    "\U00011133-\U00011134\U00011173\U000111c0\U000111c9-\U000111cc"
    "\U00011235-\U00011236\U000112e9-\U000112ea\U0001133b-\U0001133c\U0001134d"
    "\U00011366-\U0001136c\U00011370-\U00011374\U000113ce-\U000113d0\U000113d2"
    "\U000113e1-\U000113e2\U00011442\U00011446\U0001145e\U000114c2-\U000114c3"
    "\U000115bf-\U000115c0\U0001163f\U000116b6-\U000116b7\U0001172b"
    "\U00011839-\U0001183a\U0001193d-\U0001193e\U00011943\U000119e0"
    "\U00011a33-\U00011a34\U00011a47\U00011a98-\U00011a99\U00011c3f\U00011d42"
    "\U00011d44-\U00011d45\U00011d97\U00011f41-\U00011f42\U00011f5a\U00013440"
    "\U00013447-\U00013455\U0001612f\U00016af0-\U00016af4\U00016b30-\U00016b36"
    "\U00016fe2\U00016fe4\U0001bc9d\U0001cf00-\U0001cf2d\U0001cf30-\U0001cf46"
    "\U0001d165-\U0001d169\U0001d16d-\U0001d172\U0001d17b-\U0001d182"
    "\U0001d185-\U0001d18b\U0001d1aa-\U0001d1ad\U0001d242-\U0001d244"
    "\U0001da00-\U0001da36\U0001da3b-\U0001da6c\U0001da75\U0001da84"
    "\U0001da9b-\U0001da9f\U0001daa1-\U0001daaf\U0001e130-\U0001e136\U0001e2ae"
    "\U0001e2ec-\U0001e2ef\U0001e4ec-\U0001e4ef\U0001e5ee-\U0001e5ef"
    "\U0001e8d0-\U0001e8d6\U0001e944-\U0001e946\U0001e948-\U0001e94a"
    "\U0001f000-\U0001f0ff\U0001f10d-\U0001f10f\U0001f12f\U0001f16c-\U0001f16f"
    "\U0001f18e\U0001f191-\U0001f19a\U0001f1ad-\U0001f1e5\U0001f200-\U0001f20f"
    "\U0001f21a\U0001f22f\U0001f232-\U0001f23a\U0001f23c-\U0001f23f"
    "\U0001f249-\U0001f3fa\U0001f400-\U0001f53d\U0001f546-\U0001f64f"
    "\U0001f680-\U0001f6ff\U0001f774-\U0001f77f\U0001f7d5-\U0001f7ff"
    "\U0001f80c-\U0001f80f\U0001f848-\U0001f84f\U0001f85a-\U0001f85f"
    "\U0001f888-\U0001f88f\U0001f8ae-\U0001f8ff\U0001f90c-\U0001f93a"
    "\U0001f93c-\U0001f945\U0001f947-\U0001faff\U0001fc00-\U0001fffd"
    "\U000e0100-\U000e01ef"
)
