"""A session's settings checked in words before the store keeps them (issue 32, corpus 13): whole numbers
of any size, data settings that are no dict, and a labels' scale so small that every margin is refused."""

import numpy as np
import pandas as pd
import pytest

from ordercore.inputs.counts import whole_number
from ordercore.preferences import PreferenceSet
from ordercore.studio.splits import check_split
from ordercore.studio.store.sessions import label_scaling
from tests.test_store_refusals import new_session, table


@pytest.mark.parametrize("number", [2**64, 10**400, np.uint64(2**64 - 1)], ids=["2**64", "10**400", "uint64 max"])
def test_a_whole_number_beyond_float64_or_int64_is_read_as_itself(number):
    assert whole_number(number, "the seed") == int(number)  # Python's own int, exact
    check_split({"seed": number})  # numpy's generators take any seed >= 0
    np.random.default_rng(int(number))


@pytest.mark.parametrize(
    "number", [-(2**64), -(10**400), True, "1e400", 2.5], ids=["-2**64", "-10**400", "True", "1e400", "2.5"]
)
def test_what_is_no_whole_number_at_least_0_is_refused_naming_the_seed(number):
    with pytest.raises(ValueError, match="^the seed must be a whole number >= 0, got "):
        check_split({"seed": number})


def test_data_settings_that_are_no_dict_are_refused_in_words():
    with pytest.raises(TypeError, match=r"^the data settings must be a dict \(features, .*got a list$"):
        check_split([("seed", 1)])


@pytest.mark.parametrize("scaling", [[0, 1e-320], [0, 5e-324], [1e300, 1e-300], [-1e10, 1e-300]])
def test_a_scale_that_leaves_no_margin_fittable_is_refused_before_it_is_stored(store, scaling):
    session_id = new_session(store, "homes", table())
    before = store.session_by_id(session_id).settings
    with pytest.raises(ValueError, match=r"^label_scaling .*at least 2.23e-308 .*rescale the target\); got \["):
        store.update_settings(session_id, dict(before, label_scaling=scaling))
    assert store.session_by_id(session_id).settings == before


def test_the_smallest_scale_kept_still_fits_a_margin_of_its_own_size():
    tiny = np.finfo(np.float64).tiny  # float64's smallest normal number, 2**-1022
    assert tiny == 2.0**-1022
    scaling = label_scaling({"label_scaling": [0.0, tiny]})
    made = PreferenceSet.order([0], [1], margin=tiny)
    assert scaling.margins(made).tolist() == [1.0]  # d~ = d / scale, exact for powers of 2
    assert pd.isna(label_scaling({}))
