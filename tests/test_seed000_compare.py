"""Seed 000 (Uzbek instruction pack): the exact-text and JSON comparison rules, one test per rule."""

from __future__ import annotations

import json
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from site_src.systems.uzbek_pack.compare import compare_exact, compare_json, fold_apostrophes, normalise_response

OK, TQ = "\u02bb", "\u02bc"
GLYPHS = ("\u02bb", "\u02bc", "\u2018", "\u2019", "\u00b4")  # the set pack 0.1.0 declares


def exact(output: str, expected: str, mode: str = "nfc_trim", glyphs: tuple[str, ...] = GLYPHS) -> bool:
    return compare_exact(output, expected, mode, glyphs).passed


def js(output: str, expected: object, mode: str = "nfc") -> bool:
    return compare_json(output, expected, mode, GLYPHS).passed


# ---- exact text
def test_seed000_exact_both_texts_normalised_to_nfc():
    decomposed = unicodedata.normalize("NFD", "Buyurtma tayyor: Ё")
    assert decomposed != "Buyurtma tayyor: Ё"
    assert exact(decomposed, "Buyurtma tayyor: Ё")


def test_seed000_exact_crlf_and_cr_become_lf():
    assert exact("bir\r\nikki\rtri", "bir\nikki\ntri")


def test_seed000_exact_trims_only_around_the_whole_response():
    assert exact("  \n Javob tayyor. \r\n", "Javob tayyor.")
    assert not exact("Javob  tayyor.", "Javob tayyor."), "internal whitespace must not be collapsed"
    assert not exact("Javob tayyor", "Javob tayyor."), "punctuation must not be deleted"


def test_seed000_case_004_distinguishes_u02bb_from_u02bc_under_nfc_trim():
    expected = f"O{OK}zbekiston, g{OK}alla, ma{TQ}lumot"
    assert exact(expected, expected)
    assert not exact(f"O{OK}zbekiston, g{OK}alla, ma{OK}lumot", expected), "NFC does not merge ʻ and ʼ"
    assert not exact(expected.replace(TQ, "\u2019"), expected)


def test_seed000_apostrophe_equivalent_folds_exactly_the_declared_glyphs():
    expected = f"o{OK}qib chiqdim"
    for glyph in GLYPHS + ("'",):
        assert exact(f"o{glyph}qib chiqdim", expected, "apostrophe_equivalent"), f"U+{ord(glyph):04X}"


def test_seed000_apostrophe_equivalent_does_not_accept_backtick_spaces_or_missing_signs():
    expected = f"o{OK}qib chiqdim"
    assert not exact("o`qib chiqdim", expected, "apostrophe_equivalent"), "grave accent is not equivalent"
    assert not exact("oqib chiqdim", expected, "apostrophe_equivalent"), "a missing sign is not equivalent"
    assert not exact(f"o {OK}qib chiqdim", expected, "apostrophe_equivalent"), "inserted spaces are not equivalent"


def test_seed000_glyph_set_comes_from_the_pack_definition_not_code():
    expected = f"o{OK}qib"
    assert not exact("o\u2019qib", expected, "apostrophe_equivalent", glyphs=("\u02bb",))
    assert exact("o\u2019qib", expected, "apostrophe_equivalent", glyphs=("\u02bb", "\u2019"))


def test_seed000_apostrophe_equivalent_applies_only_to_cases_that_enable_it():
    assert not exact("o\u2019qib", f"o{OK}qib", "nfc_trim")


def test_seed000_cases_001_003_require_cyrillic_ha():
    assert not exact("хурматли мижоз", "ҳурматли мижоз")


def test_seed000_extra_introduction_fails_an_exact_output_contract():
    assert not exact("Javob: 7", "7")
    assert not exact("```\n7\n```", "7")


# ---- JSON
def test_seed000_json_whole_output_is_one_value_surrounding_whitespace_fine():
    assert js('\n  {"a": 1}  \n', {"a": 1})
    assert not js('```json\n{"a": 1}\n```', {"a": 1}), "Markdown fences are not valid output"
    assert not js('{"a": 1} Hope this helps!', {"a": 1}), "trailing commentary is not valid output"
    assert not js('{"a": 1}{"a": 1}', {"a": 1})


def test_seed000_json_rejects_duplicate_keys():
    result = compare_json('{"a": 1, "a": 1}', {"a": 1}, "nfc", GLYPHS)
    assert not result.passed and "duplicate key" in result.reason


def test_seed000_json_rejects_nan_and_infinity():
    for token in ("NaN", "Infinity", "-Infinity"):
        assert not js(f'{{"a": {token}}}', {"a": 1})


def test_seed000_json_key_order_free_array_order_strict():
    assert js('{"b": 2, "a": 1}', {"a": 1, "b": 2})
    assert not js('["Samarqand", "Toshkent"]', ["Toshkent", "Samarqand"])


def test_seed000_json_no_extra_or_missing_keys_and_no_key_normalisation():
    assert not js('{"a": 1, "b": 2}', {"a": 1})
    assert not js("{}", {"a": 1})
    assert not js('{"Payment": "karta"}', {"payment": "karta"})


def test_seed000_json_types_preserved():
    assert not js('{"n": "3"}', {"n": 3}), "strings are not numbers"
    assert not js('{"h": "null"}', {"h": None}), "null is not 'null'"
    assert not js('{"f": 1}', {"f": True}), "booleans are not 0/1"
    assert not js('{"f": true}', {"f": 1}), "booleans are not 0/1"
    assert js('{"h": null, "f": false}', {"h": None, "f": False})


def test_seed000_json_integer_only_requires_an_integer_token():
    assert js('{"items": 3}', {"items": 3})
    assert not js('{"items": 3.0}', {"items": 3})
    assert not js('{"items": 3e0}', {"items": 3})


def test_seed000_json_strings_compared_after_nfc_never_trimmed_inside():
    assert js(json.dumps({"s": unicodedata.normalize("NFD", "Ёлка")}), {"s": "Ёлка"})
    assert not js('{"s": " karta"}', {"s": "karta"})
    assert not js('{"s": "ka  rta"}', {"s": "ka rta"})


def test_seed000_json_apostrophe_folding_only_where_the_case_says():
    assert js('{"p": "o\u2019tkazma"}', {"p": f"o{OK}tkazma"}, "apostrophe_equivalent")
    assert not js('{"p": "o\u2019tkazma"}', {"p": f"o{OK}tkazma"}, "nfc")


def test_seed000_case_017_keeps_spaces_and_leading_zeros():
    expected = {"amount": f"1 250 000 so{OK}m", "document": "000731"}
    assert js(json.dumps(expected, ensure_ascii=False), expected)
    assert not js(json.dumps({"amount": f"1250000 so{OK}m", "document": "000731"}), expected)
    assert not js(json.dumps({"amount": f"1 250 000 so{OK}m", "document": "731"}), expected)
    assert not js(json.dumps({"amount": f"1 250 000 so{OK}m", "document": 731}), expected)


# ---- properties
text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)


@given(text)
def test_seed000_property_normalisation_is_idempotent(s):
    once = normalise_response(s)
    assert normalise_response(once) == once
    assert "\r" not in once


@given(text)
def test_seed000_property_any_text_matches_itself_in_both_modes(s):
    assert exact(s, s)
    assert exact(s, s, "apostrophe_equivalent")


@given(text)
def test_seed000_property_folding_changes_only_declared_glyphs(s):
    folded = fold_apostrophes(s, GLYPHS)
    assert len(folded) == len(s)
    for before, after in zip(s, folded, strict=True):
        assert after == ("'" if before in GLYPHS else before)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(text, children, max_size=4),
    max_leaves=12,
)


@given(json_values)
def test_seed000_property_json_value_matches_its_own_serialisation(value):
    assert js(json.dumps(value, ensure_ascii=False), value)
    assert js(json.dumps(value, indent=3), value)


@given(st.dictionaries(text, st.integers(), min_size=2, max_size=6))
def test_seed000_property_json_key_order_never_matters(value):
    reordered = dict(reversed(list(value.items())))
    assert js(json.dumps(reordered), value)


@given(st.lists(st.integers(), min_size=2, max_size=6, unique=True))
def test_seed000_property_json_array_order_always_matters(values):
    assert not js(json.dumps(list(reversed(values))), values)
