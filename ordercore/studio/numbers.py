"""Numbers as the Studio shows them (issue 33): significant digits with thousands separators and no
exponent below 10¹⁵, a change of zero as "no change", durations in seconds and minutes, and long work as so
many of a total with the time left."""

from __future__ import annotations

import math
import re

DIGITS = 4
"""Significant digits the Studio shows of a measured number (an error, a mean)."""

MOST_DECIMALS = 12
"""Decimals shown at most: below 10⁻¹² a number reads as 0."""

LARGEST_PLAIN = 1e15
"""From this size on ``significant`` writes 1.235 × 10¹⁶: a float's digits past the 16th are artefacts
(1e300 in plain decimals read '1,000,000,000,000,000,052,504,…', digits that looked like data)."""

SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")

MINUS = "−"
"""The minus sign of a change or an error shown in text (U+2212, as plotly's ticks): a new user read
"-26.9" in text beside "−0.5" on an axis.  Files people save (CSV, exports) keep the ASCII hyphen."""


def shown_decimals(value: float, digits: int = DIGITS) -> int:
    """The decimals that show a non-zero ``value`` to ``digits`` significant digits (none for a value
    with that many digits left of the point; at most ``MOST_DECIMALS``)."""
    return min(MOST_DECIMALS, max(0, digits - 1 - math.floor(math.log10(abs(value)))))


def significant(value: float, digits: int = DIGITS) -> str:
    """``value`` to ``digits`` significant digits in plain decimals: 62,460 / 12.35 / 0.00001235, every
    digit left of the point kept (62,460.25 reads 62,460), trailing zeros after the point dropped; from
    ``LARGEST_PLAIN`` on as 1.235 × 10¹⁶."""
    value = float(value)
    if not math.isfinite(value):
        return "—"
    if value == 0:
        return "0"
    if abs(value) >= LARGEST_PLAIN:
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        return f"{mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPTS)}"
    decimals = shown_decimals(value, digits)
    text = f"{value:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def change(delta: float, of: float) -> str:
    """A change ``delta`` of a value ``of``, signed, to the last digit the value is shown with ('+4'
    beside 1,928, shown whole; '+0.0123' beside 0.5234, four significant digits; a fall with ``MINUS``), so
    that a change never reads more precise than what it changes; '—' when either is not finite."""
    delta, of = float(delta), float(of)
    if not (math.isfinite(delta) and math.isfinite(of)):
        return "—"
    decimals = DIGITS - 1 if of == 0 else shown_decimals(of)
    return f"{delta:+,.{decimals}f}".replace("-", MINUS)


def to_digits_of(value: float, of: float) -> str:
    """``value`` to the last digit ``of`` is shown with (``change`` without a plus; ``MINUS``): a model's move
    of 9e-11 beside an error of 12,000 reads '0', not '0.00000000009'; '—' when either is not finite."""
    value, of = float(value), float(of)
    if not (math.isfinite(value) and math.isfinite(of)):
        return "—"
    text = f"{value:,.{DIGITS - 1 if of == 0 else shown_decimals(of)}f}"
    return "0" if reads_as_zero(text) else text.replace("-", MINUS)


def fixed(value: float, decimals: int = 2) -> str:
    """``value`` to ``decimals`` places with ``MINUS``, never a signed zero ('0.00', not '-0.00': a new user
    read "Spearman's ρ -0.00" and a direction taken from it); '—' when not finite."""
    value = float(value)
    if not math.isfinite(value):
        return "—"
    text = f"{value:,.{decimals}f}"
    return text.lstrip("-") if reads_as_zero(text) else text.replace("-", MINUS)


def reads_as_zero(text: str) -> bool:
    """Whether a formatted number (with any sign, separators, words after it) shows only zeros."""
    number = re.match(r"\s*[-+−]?[\d,.\s]*", text).group()
    return any(c.isdigit() for c in number) and not any(c in "123456789" for c in number)


def metric_delta(text: str, lower_is_better: bool = True, within_noise: bool = False) -> dict:
    """``st.metric``'s delta arguments for a change formatted as ``text``: "no change" with no arrow and
    no colour when it reads as zero; else its size without its sign, which the arrow shows (a new user
    read "↓ -0.6"), grey when ``within_noise`` (its interval spans 0: neither better nor worse, surely),
    else green or red by whether it is better."""
    if reads_as_zero(text):
        return {"delta": "no change", "delta_color": "off", "delta_arrow": "off"}
    down = text.lstrip().startswith(("-", "−"))
    colour = "gray" if within_noise else "green" if down == lower_is_better else "red"
    return {"delta": text.lstrip().lstrip("+-−"), "delta_arrow": "down" if down else "up", "delta_color": colour}


def duration(seconds: float) -> str:
    """A duration for reading: '45 s', '1 min 10 s', '2 h 5 min'; '—' for one unknown or negative (NaN:
    a clock read before it started; it raised "cannot convert float NaN to integer")."""
    if not math.isfinite(seconds) or seconds < 0:
        return "—"
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min" if rest == 0 else f"{minutes} min {rest} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours:,} h" if minutes == 0 else f"{hours:,} h {minutes} min"


def work_done(done: int, total: int, seconds: float, unit: str) -> str:
    """Long work as the expert reads it: '3 of 10 trials, 30 s so far, about 1 min 10 s left' (the mean
    time of those done times those left), '10 of 10 trials in 1 min 35 s' when all are done; no total
    when more are done than it says ('5 pairs, 2 s so far', not '5 of 0 pairs')."""
    if done > total:
        return f"{done:,} {unit}, {duration(seconds)} so far"
    if total and done == total:
        return f"{done:,} of {total:,} {unit} in {duration(seconds)}"
    text = f"{done:,} of {total:,} {unit}, {duration(seconds)} so far"
    if done > 0:
        text += f", about {duration(seconds / done * (total - done))} left"
    return text


def gp_progress_text(done: int, most: int, seconds: float, usual: int) -> str:
    """A GP evidence search's progress: evaluations of at most ``most``, and the time left if it ends
    after ``usual`` evaluations (where searches usually end) and at most."""
    each = seconds / done
    text = f"evidence evaluation {done:,} of at most {most:,}, about {significant(each, 2)} s each"
    at_most = duration((most - done) * each)
    if done < usual:
        text += f"; about {duration((usual - done) * each)} left if it ends after {usual} as searches usually do"
    return f"{text}, at most {at_most} more; {duration(seconds)} so far"


def gp_starting_text(method: str, n_inducing: int, most: int, seconds: float) -> str:
    """A GP fit before its first evidence evaluation ends: the phase its ``method`` ('exact' or
    'sparse') is in, '0 of at most 100 evidence evaluations' and the time so far (an exact fit said
    it was placing inducing inputs, which only a sparse one has)."""
    places = f", placing the {n_inducing:,} inducing inputs" if method == "sparse" else ""
    return (
        f"loading the data{places}, then the first evidence evaluation (one fit of the hidden value of every row, "
        "by the Laplace approximation, to score a choice of the GP's settings; it searches for the best): "
        f"0 of at most {most:,} evidence evaluations, {duration(seconds)} so far"
    )


MEMORY_UNITS = ("bytes", "kB", "MB", "GB", "TB")


def memory_size(size: float) -> str:
    """A size in bytes in the unit that keeps it from 1 to 999 (decimal units, two significant digits
    below 10): '4.8 MB', not 'about 0.0048 GB'; '—' for a size unknown or below 0."""
    if not size >= 0:
        return "—"
    power = 0
    while abs(size) >= 999.5 and power < len(MEMORY_UNITS) - 1:
        size, power = size / 1000, power + 1
    return f"{significant(size, 2 if abs(size) < 10 else 3)} {MEMORY_UNITS[power]}"


def counted(count: int, noun: str) -> str:
    """'1 cycle', '2 cycles', '1,204 conflicting pairs': a count with its noun, plural unless 1 (a new
    user read '1 conflicting pairs')."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


SOLVE_STARTS = {"cold": "from scratch", "hot": "from the last solution", "kept": "the last solution still held"}
"""How a retrain's solve started (the regressors' ``solve_start_``), in words: 'cold' is solver jargon."""


def solve_start_words(start: str) -> str:
    """'from scratch' for 'cold', and so on; the members' starts joined as ``solve_start_`` joins them
    ('cold, hot' gives 'from scratch, from the last solution'); an unknown start as it is."""
    return ", ".join(SOLVE_STARTS.get(part, part) for part in str(start).split(", "))


TEXT_PX, CELL_PADDING, LINE_PX, WRAPPING_ROW = 7.5, 16, 20, 65
"""A grid's text: about 7.5 px a character (14 px Source Sans, its wider letters), 8 px of padding each side
of a cell, 20 px a line; Streamlit wraps a grid's text only in rows taller than 64 px."""


def wrapped_row_height(texts, width: int, most_lines: int = 4) -> int | None:
    """A grid's row height (px) at which each of ``texts`` shows whole in a column ``width`` px wide,
    wrapped at its spaces (a rule's name cut to 'fewer km wor' at 1024 px): None when each fits on one
    line, else room for the most lines one takes (at most ``most_lines``), never below ``WRAPPING_ROW``."""
    room = (width - CELL_PADDING) / TEXT_PX  # characters a line holds
    lines = 1
    for text in map(str, texts):
        count, used = 1, 0
        for word in text.split(" "):
            if used and used + 1 + len(word) > room:
                count, used = count + 1, len(word)
            else:
                used += len(word) + (1 if used else 0)
        lines = max(lines, count + int(used > room))
    return None if lines == 1 else max(WRAPPING_ROW, min(lines, most_lines) * LINE_PX + CELL_PADDING)
