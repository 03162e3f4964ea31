"""Notes in the languages people write: found by the words in them, the holder first."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from hearth.index.dates import named_dates
from hearth.index.search_index import SearchIndex
from hearth.index.terms import read_query
from tests.conftest import indexed_files, keyword_search

LONG_CLAUSE = (
    "今年の夏は北海道で家族と一緒にキャンプをして星空を眺めながらバーベキューを楽しみ"
    "翌朝は早起きして湖のほとりを散歩してから温泉に入りそのあと地元の市場で新鮮な"
    "海産物を買って帰り夜は祖母の家で手作りの料理をいただきながら昔話を聞きましたが"
    "その中で祖父が若い頃に漁師として働いていた話がとても印象に残っていて来年もまた"
    "みんなで集まろうと約束しました本当に楽しい思い出になりましたまた行きたいと思いますし"
    "次は友達も誘ってみたいです"
)

FILES = {
    "memory/topics/zh-cooking.md": "# 做饭\n\n今天我用西红柿和鸡蛋做了一道菜，味道很好。\n",
    "memory/topics/zh-weather.md": "# 天气\n\n明天下午三点开项目评审会议，记得带电脑。\n",
    "memory/topics/ja-food.md": "# 食べ物\n\n東京で美味しい寿司を食べました。\n",
    "memory/topics/ja-travel.md": "# 旅行\n\n京都の寺を見に行きました。\n",
    "memory/topics/ko-trip.md": "# 여행\n\n다음 주에 부산에서 친구를 만날 거예요.\n",
    "memory/topics/ko-work.md": "# 일\n\n서울 사무실에서 회의가 있었어요.\n",
    "memory/topics/de.md": "# Notizen\n\nIm Frühjahr wollen wir die Gärten in Köln umgraben.\n",
    "memory/topics/de-other.md": "# Andere\n\nDie Straße vor dem Haus wird erneuert.\n",
    "memory/topics/fr.md": (
        "# Notes\n\nNous avons mangé une crème brûlée au café près de l'église.\n"
    ),
    "memory/topics/fr-other.md": "# Autres\n\nLe marché ouvre à huit heures le samedi.\n",
    "memory/topics/long-clause.md": f"# 思い出\n\n{LONG_CLAUSE}\n",
    "memory/topics/long-word.md": "# Long\n\n" + "x" * 150 + "ynchronization happened.\n",
    "memory/topics/english.md": "# Garden\n\nSam plants tomatoes in the garden every spring.\n",
    "memory/topics/party.md": "# Party\n\nSam's party was 🎉 great, bring 🍕 next time.\n",
    "memory/topics/emoji-glued.md": "# Glued\n\nRoof mended✅ and the van 👍🏽 too.\n",
    "memory/topics/family.md": "# Family\n\nThe three of us 👨‍👩‍👧 at the lake, ❤️ it.\n",
    # Text pasted in decomposed form (NFD), as some macOS apps hand it over.
    "memory/topics/nfd.md": unicodedata.normalize(
        "NFD", "# Pasted\n\nCafé au lait in Besançon with Zoë.\n"
    ),
    "memory/topics/nfd-ko.md": unicodedata.normalize("NFD", "# 저녁\n\n김치찌개를 먹었다.\n"),
    "memory/topics/el.md": "# Ταξίδι\n\nΉπιαμε καφέ στην Αθήνα με τον Νίκο.\n",
    "memory/topics/ru.md": "# Праздник\n\nКупили ёлку и мандарины на Новый год.\n",
    "memory/topics/ar.md": "# الجمعة\n\nذهبنا إلى السُّوق يوم الجمعة\n",
    "memory/topics/he.md": "# ברכה\n\nאָמַרְנוּ שָׁלוֹם לַשְּׁכֵנִים.\n",
    "memory/topics/ja-halfwidth.md": "# 夕食\n\nｶﾚｰﾗｲｽを作った。\n",
    "memory/topics/ja-ramen.md": "# 昼食\n\nラーメンを食べに行った。\n",
    "memory/topics/tr.md": "# Gezi\n\nİstanbul'da Işıl ile buluştuk.\n",
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    idx = indexed_files(tmp_path_factory.mktemp("langs"), FILES)
    return idx


def first(index: SearchIndex, query: str) -> str:
    hits = keyword_search(index, query)
    assert hits, f"nothing found for {query!r}"
    return hits[0].path


@pytest.mark.parametrize(
    ("query", "holder"),
    [
        ("西红柿", "memory/topics/zh-cooking.md"),
        ("鸡蛋", "memory/topics/zh-cooking.md"),
        ("评审", "memory/topics/zh-weather.md"),
        ("我做了什么菜", "memory/topics/zh-cooking.md"),
        ("寿司", "memory/topics/ja-food.md"),
        ("東京", "memory/topics/ja-food.md"),
        ("京都の寺", "memory/topics/ja-travel.md"),
        ("부산", "memory/topics/ko-trip.md"),
        ("부산에서", "memory/topics/ko-trip.md"),
        ("서울", "memory/topics/ko-work.md"),
    ],
)
def test_cjk_words_find_the_note_that_holds_them_first(
    index: SearchIndex, query: str, holder: str
) -> None:
    assert first(index, query) == holder


def test_a_cjk_word_matches_only_as_a_whole(index: SearchIndex) -> None:
    # 西瓜 (watermelon) shares 西 with 西红柿 but is in no note.
    assert keyword_search(index, "西瓜") == []
    # 京 alone is in both Tokyo and Kyoto; 東京 only in one.
    assert {h.path for h in keyword_search(index, "東京")} == {"memory/topics/ja-food.md"}


@pytest.mark.parametrize(
    ("query", "holder"),
    [
        ("Gärten", "memory/topics/de.md"),
        ("garten", "memory/topics/de.md"),
        ("Köln", "memory/topics/de.md"),
        ("koln", "memory/topics/de.md"),
        ("Straße", "memory/topics/de-other.md"),
        ("strasse", "memory/topics/de-other.md"),
        ("crème brûlée", "memory/topics/fr.md"),
        ("creme brulee", "memory/topics/fr.md"),
        ("église", "memory/topics/fr.md"),
        ("eglise", "memory/topics/fr.md"),
        ("marché", "memory/topics/fr-other.md"),
        ("marche", "memory/topics/fr-other.md"),
    ],
)
def test_german_and_french_with_and_without_accents(
    index: SearchIndex, query: str, holder: str
) -> None:
    assert first(index, query) == holder


def test_a_200_character_clause_is_found_by_a_word_inside_it(index: SearchIndex) -> None:
    assert len(LONG_CLAUSE) >= 200
    for word in ("北海道", "温泉", "漁師", "約束"):
        assert first(index, word) == "memory/topics/long-clause.md"


def test_a_word_longer_than_a_token_is_cut_not_dropped(index: SearchIndex) -> None:
    assert first(index, "happened") == "memory/topics/long-word.md"
    assert first(index, "x" * 64) == "memory/topics/long-word.md"


@pytest.mark.parametrize(
    ("query", "holder"),
    [
        ("🎉", "memory/topics/party.md"),
        ("🍕", "memory/topics/party.md"),
        ("pizza 🍕", "memory/topics/party.md"),
        ("✅", "memory/topics/emoji-glued.md"),
        ("mended", "memory/topics/emoji-glued.md"),
        ("👍", "memory/topics/emoji-glued.md"),
        ("👍🏽", "memory/topics/emoji-glued.md"),
        ("👩", "memory/topics/family.md"),
        ("👨‍👩‍👧", "memory/topics/family.md"),
        ("❤", "memory/topics/family.md"),
        ("❤️", "memory/topics/family.md"),
    ],
)
def test_an_emoji_the_home_holds_finds_its_note(
    index: SearchIndex, query: str, holder: str
) -> None:
    """A lived-in home's emoji (hostile pass): before, the analyzer dropped
    pictographs, and a search for an emoji a note holds said "no matches".
    Skin tones, joiners and the emoji presentation selector are not needed
    to find it."""
    assert first(index, query) == holder


def test_an_emoji_the_home_does_not_hold_finds_nothing(index: SearchIndex) -> None:
    assert keyword_search(index, "🦉") == []


@pytest.mark.parametrize(
    ("query", "holder"),
    [
        ("café", "memory/topics/nfd.md"),
        ("cafe", "memory/topics/nfd.md"),
        ("Besançon", "memory/topics/nfd.md"),
        ("zoe", "memory/topics/nfd.md"),
        ("김치찌개", "memory/topics/nfd-ko.md"),
        ("καφε", "memory/topics/el.md"),
        ("αθηνα", "memory/topics/el.md"),
        ("Αθήνα", "memory/topics/el.md"),
        ("елку", "memory/topics/ru.md"),
        ("ёлку", "memory/topics/ru.md"),
        ("السوق", "memory/topics/ar.md"),
        ("السُّوق", "memory/topics/ar.md"),
        ("שלום", "memory/topics/he.md"),
        ("カレーライス", "memory/topics/ja-halfwidth.md"),
        ("ｶﾚｰﾗｲｽ", "memory/topics/ja-halfwidth.md"),
        ("ﾗｰﾒﾝ", "memory/topics/ja-ramen.md"),
        ("istanbul", "memory/topics/tr.md"),
        ("İstanbul", "memory/topics/tr.md"),
    ],
)
def test_a_word_typed_the_way_people_type_it_finds_the_note(
    index: SearchIndex, query: str, holder: str
) -> None:
    """Search of a lived-in home in other languages (hostile pass): each of
    these said "no matches" for a word the home holds, typed as people type
    it: decomposed text (NFD) found by the composed word, Greek without its
    accents, Russian е for ё, Arabic and Hebrew without vowel points,
    full-width katakana for half-width and back, Turkish ``istanbul``."""
    assert first(index, query) == holder


def test_folding_keeps_letters_that_are_letters_of_their_own(tmp_path: Path) -> None:
    """Russian й is not и: a fold of every mark would find ``мои`` in ``мой``."""
    more = indexed_files(tmp_path, {"memory/topics/x.md": "# x\n\nмой дом\n"})
    assert keyword_search(more, "мои") == []
    assert first(more, "мой") == "memory/topics/x.md"


def test_english_still_stems(index: SearchIndex) -> None:
    assert first(index, "tomato gardens") == "memory/topics/english.md"


def test_query_text_reading() -> None:
    read = read_query('what did 西红柿 "東京の" -the garde* +the')
    assert read.prefixes == ("garde",)
    assert read.runs == ("西红柿",)
    # Outside quotes the run becomes its pairs; the quoted run stays whole;
    # stop words go, except the required one.
    assert read.parsed.split() == ["西红", "红柿", '"東京の"', "-the", "+the"]
    assert read_query("the who").parsed == "the who"


def test_dates_named_in_a_query() -> None:
    assert named_dates("on May 3, 2023 and 8th December, 2023") == ["2023-05-03", "2023-12-08"]
    assert named_dates("in August 2023, or 2024-01-05") == ["2023-08", "2024-01-05"]
    assert named_dates("may I ask about 31 February") == []


@pytest.mark.parametrize(
    ("query", "bold"),
    [
        ("αθηνα", "**Αθήνα**"),
        ("καφε", "**καφέ**"),
        ("cafe", unicodedata.normalize("NFD", "**Café**")),
        ("zoe", unicodedata.normalize("NFD", "**Zoë**")),
        ("елку", "**ёлку**"),
        ("السوق", "**السُّوق**"),
        ("שלום", "**שָׁלוֹם**"),
        ("istanbul", "**İstanbul**"),
    ],
)
def test_a_word_found_through_folding_is_bold_as_written(
    index: SearchIndex, query: str, bold: str
) -> None:
    """A word found in its folded spelling (Greek accents, NFD, ё, vowel
    points) was found with a snippet without bold: the highlighter read the
    body's own spelling. The snippet shows the body as written, the word bold."""
    [hit, *_] = keyword_search(index, query)
    assert bold in hit.snippet
