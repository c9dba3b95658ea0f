"""An independent reference for benchtui's two-sample arithmetic (tests only).

Written from the rules in benchtui(1) COMPARE, not from
engine/stats/stats_two.c: the exact null distribution of the Mann-Whitney
statistic by integer counting (Gaussian binomial coefficients: the number
of ways U = u is the number of partitions of u into at most m parts none
larger than n), every difference listed and sorted, the normal quantile
from Python's statistics module.  tests/engine/stats/stats_two_ref.py and
the compare tests check engine/stats against it.
"""
import functools
import math
from fractions import Fraction
from statistics import NormalDist

from stats_ref import verdict  # noqa: F401  (the same rule as a round's)

EXACT_MAX = 50


@functools.lru_cache(maxsize=None)
def u_counts(m, n):
    """How many of the C(m+n, m) arrangements give U = u, for every u:
    the coefficients of the Gaussian binomial [m+n choose m]_q, built by
    q-Pascal: [N, K] = [N-1, K-1] + q^K [N-1, K].  A tuple, computed once
    for each (m, n) whatever asks for it again (every level)."""
    # g[N][K] as coefficient lists; only K <= m is needed.
    prev = [[1]]  # N = 0: [0, 0] = 1
    for big_n in range(1, m + n + 1):
        cur = []
        for k in range(0, min(big_n, m) + 1):
            a = prev[k - 1] if k >= 1 else []
            b = prev[k] if k < len(prev) else []
            length = max(len(a), len(b) + k)
            c = [0] * length
            for i, x in enumerate(a):
                c[i] += x
            for i, x in enumerate(b):
                c[i + k] += x
            cur.append(c)
        prev = cur
    return tuple(prev[m])


def ties_sum(values):
    """Sum of t^3 - t over the groups of t equal values."""
    seen = {}
    for v in values:
        seen[v] = seen.get(v, 0) + 1
    return sum(t ** 3 - t for t in seen.values())


def mw_k(m, n, level, ties):
    """Largest k with P(U <= k-1) <= (1-level)/2 (exact), or the normal
    approximation's floor(N/2 - z sigma); 0 when there is none."""
    if m == 0 or n == 0:
        return 0
    if ties == 0 and m <= EXACT_MAX and n <= EXACT_MAX:
        counts = u_counts(m, n)
        total = math.comb(m + n, m)
        assert sum(counts) == total
        alpha = Fraction((1 - level) / 2)
        k, cum = 0, 0
        for u, c in enumerate(counts):
            cum += c
            if cum > alpha * total:
                break
            k = u + 1
        return k
    nn = m + n
    z = NormalDist().inv_cdf((1 + level) / 2)
    var = m * n / 12 * ((nn + 1) - ties / (nn * (nn - 1)))
    k = math.floor(m * n / 2 - z * math.sqrt(max(var, 0)))
    return max(k, 0)


def interval2(a, b, level):
    """(estimate, [lo, hi] or None, k) of b against a, as ratios."""
    x = [math.log(v) for v in a]
    y = [math.log(v) for v in b]
    if not x or not y:
        return None, None, 0
    d = sorted(yj - xi for xi in x for yj in y)
    n = len(d)
    est = d[n // 2] if n % 2 else (d[n // 2 - 1] + d[n // 2]) / 2
    k = mw_k(len(x), len(y), level, ties_sum(x + y))
    ci = None
    if 1 <= k <= n // 2 + n % 2:
        ci = [math.exp(d[k - 1]), math.exp(d[n - k])]
    return math.exp(est), ci, k

