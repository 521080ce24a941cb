"""``wrapped_row_height``: the row height at which a grid shows long names whole, wrapped at their spaces
(new-user report 9, Minor 8: 'same make+body, age ±1: fewer km wor'), worked out by hand."""

from ordercore.studio.numbers import wrapped_row_height


def test_a_long_name_gets_rows_tall_enough_for_its_lines_and_short_ones_none():
    # 230 px less 16 of padding hold 28.5 characters of 7.5 px: 'same make+body, age ±1:' (23) then
    # 'fewer km worth more' (19): two lines, 2 × 20 + 16 = 56 px, raised to 65 (Streamlit wraps above 64)
    assert wrapped_row_height(["less age", "same make+body, age ±1: fewer km worth more"], 230) == 65
    assert wrapped_row_height(["less age", "more bedrooms"], 230) is None
    # 100 px hold 11.2 characters: 'rule #2:' / 'same' / 'make+body,' / 'similar km' / '& hp:' / 'younger': 6 lines,
    # at most 4: 4 × 20 + 16 = 96
    assert wrapped_row_height(["rule #2: same make+body, similar km & hp: younger"], 100) == 96
    assert wrapped_row_height(["rule #2: same make+body, similar km & hp: younger"], 100, most_lines=8) == 136
