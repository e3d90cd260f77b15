# Owner(s): ["module: dynamo"]

"""torch._numpy.interp against numpy.interp."""

import numpy
from pytest import raises as assert_raises

from torch.testing._internal.common_utils import (
    instantiate_parametrized_tests,
    parametrize,
    run_tests,
    TEST_WITH_TORCHDYNAMO,
    TestCase,
)


# If we are going to trace through these, we should use NumPy
# If testing on eager mode, we use torch._numpy
if TEST_WITH_TORCHDYNAMO:
    import numpy as np
    from numpy.testing import assert_array_equal, assert_equal
else:
    import torch._numpy as np
    from torch._numpy.testing import assert_array_equal, assert_equal


@instantiate_parametrized_tests
class TestInterp(TestCase):
    @parametrize("dtype", ["float32", "float64", "int64"])
    def test_interp_is_numpys_float64(self, dtype):
        rng = numpy.random.default_rng(0)
        xp = numpy.sort(rng.uniform(-4, 4, 50)).astype(dtype)
        fp = rng.uniform(-10, 10, 50).astype(dtype)
        x = rng.uniform(-5, 5, 1000).astype(dtype)
        x[:50] = xp  # on the sample points
        expected = numpy.interp(x, xp, fp)
        actual = np.interp(np.asarray(x), np.asarray(xp), np.asarray(fp))
        self.assertEqual(actual.dtype, np.float64)
        assert_array_equal(actual, expected)

    def test_interp_left_right_and_non_finite(self):
        xp = [1.0, 2.0, 3.0, 4.0]
        fp = [1.0, 2.0, numpy.inf, 4.0]
        x = [0.0, 1.0, 2.0, 2.5, 3.0, numpy.nan, 5.0]
        for left, right in [(None, None), (-1.0, 10.0)]:
            expected = numpy.interp(x, xp, fp, left=left, right=right)
            assert_equal(np.interp(x, xp, fp, left=left, right=right), expected)

    def test_interp_complex_fp(self):
        xp = [0.0, 1.0, 2.0]
        fp = [1 + 2j, 3 - 1j, numpy.inf + 1j]
        x = [-1.0, 0.5, 1.0, 1.5, 3.0]
        actual = np.interp(x, xp, fp, left=5j)
        self.assertEqual(actual.dtype, np.complex128)
        assert_equal(actual, numpy.interp(x, xp, fp, left=5j))

    def test_interp_period(self):
        x = [-180.0, -170.0, -185.0, 185.0, -10.0, -5.0, 0.0, 365.0]
        xp = [190.0, -190.0, 350.0, -350.0]
        fp = [5.0, 10.0, 3.0, 4.0]
        expected = numpy.interp(x, xp, fp, period=360)
        assert_equal(np.interp(x, xp, fp, period=360), expected)

    def test_interp_errors_are_numpys(self):
        with assert_raises(ValueError, match="array of sample points is empty"):
            np.interp(0, [], [])
        with assert_raises(ValueError, match="fp and xp are not of the same length"):
            np.interp(0, [0], [1, 2])
        with assert_raises(ValueError, match="period must be a non-zero value"):
            np.interp(0, [0, 1], [1, 2], period=0)
        with assert_raises(ValueError, match="object too deep for desired array"):
            np.interp(0, [[0, 1]], [[1, 2]])
        with assert_raises(TypeError, match="according to the rule 'safe'"):
            np.interp([1j], [0, 1], [1, 2])


if __name__ == "__main__":
    run_tests()
