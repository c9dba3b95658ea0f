"""An independent reference for benchtui's arithmetic (tests only).

Written from the rules in benchtui(1) STATISTICS, not from engine/stats/stats.c:
the null distribution of the signed-rank statistic by exact integer
counting, every Walsh average listed and sorted, the normal quantile from
Python's statistics module.  tests/e2e/stats_ref.sh and report_random.sh
compare `benchtui report --format json` with it.
"""
import functools
import math
from fractions import Fraction
from statistics import NormalDist

EXACT_MAX = 2000


def ratios(pairs):
    """Paired ratios a/b of (a, b) pairs where both are present and > 0."""
    return [a / b for a, b in pairs
            if a is not None and b is not None and a > 0 and b > 0]


def median(v):
    s = sorted(v)
    n = len(s)
    if not n:
        return None
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


@functools.lru_cache(maxsize=None)
def null_counts(n):
    """How many of the 2^n sign patterns give T = t, for every t (a
    tuple: computed once for each n, whatever asks for it again)."""
    c = [1]
    for i in range(1, n + 1):
        nxt = c + [0] * i
        for t, x in enumerate(c):
            nxt[t + i] += x
        c = nxt
    return tuple(c)


def wilcoxon_k(n, level):
    """Largest k with P(T <= k-1) <= (1-level)/2; 0 when there is none."""
    if n == 0:
        return 0
    m = n * (n + 1) // 2
    if n > EXACT_MAX:
        z = NormalDist().inv_cdf((1 + level) / 2)
        k = math.floor(m / 2 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24))
        return max(k, 0)
    counts = null_counts(n)
    total = 2 ** n
    # Exact: the double (1 - level) / 2 as a fraction, against integers.
    alpha = Fraction((1 - level) / 2)
    k, cum = 0, 0
    for t in range(m + 1):
        cum += counts[t]
        if cum > alpha * total:
            break
        k = t + 1
    return k


def walsh(x):
    w = [(x[i] + x[j]) / 2 for i in range(len(x)) for j in range(i, len(x))]
    w.sort()
    return w


@functools.lru_cache(maxsize=4)
def walsh_of_logs(rs):
    """The sorted Walsh averages of the logs of ratios rs (a tuple): the
    same ratios at another level are not listed and sorted again."""
    return walsh(sorted(math.log(r) for r in rs))


def interval(rs, level):
    """(estimate, [lo, hi] or None) of ratios rs, as ratios."""
    n = len(rs)
    if n == 0:
        return None, None
    w = walsh_of_logs(tuple(rs))
    m = len(w)
    est = w[m // 2] if m % 2 else (w[m // 2 - 1] + w[m // 2]) / 2
    k = wilcoxon_k(n, level)
    ci = [math.exp(w[k - 1]), math.exp(w[m - k])] if k >= 1 else None
    return math.exp(est), ci


def verdict(ci, margin):
    if ci is None:
        return "unknown"
    lo, hi = ci
    if lo >= 1 / (1 + margin) and hi <= 1 + margin:
        return "same"
    if lo > 1:
        return "above"
    if hi < 1:
        return "below"
    return "undecided"


# The floor estimator, from benchtui(1) STATISTICS: ranks by integer
# arithmetic, the hypergeometric tail as an exact fraction of binomial
# coefficients (math.comb), the order statistics by sorting.

def floor_rank(n):
    """v: ceil(n / 20), at least 1."""
    return max(1, -(-n // 20)) if n else 0


def floor_tail(n, u, v):
    """P(at most v-1 of the lowest u+v-1 of 2n exchangeable values are
    the arm's), exactly."""
    k = u + v - 1
    hits = sum(math.comb(n, j) * math.comb(n, k - j)
               for j in range(v) if k - j <= n)
    return Fraction(hits, math.comb(2 * n, k))


def floor_u(n, level):
    """The smallest u in (v, n] with tail <= (1-level)/2 (a plain scan),
    or 0."""
    v = floor_rank(n)
    alpha = Fraction((1 - level) / 2)
    for u in range(v + 1, n + 1):
        if floor_tail(n, u, v) <= alpha:
            return u
    return 0


def floor_interval(a, b, level):
    """(estimate, [lo, hi] or None) of values a against b (paired reps)."""
    n = len(a)
    if n == 0:
        return None, None
    sa, sb = sorted(a), sorted(b)
    v = floor_rank(n)
    u = floor_u(n, level)
    est = sa[v - 1] / sb[v - 1]
    if not u:
        return est, None
    return est, [sa[v - 1] / sb[u - 1], sa[u - 1] / sb[v - 1]]


# A round on several hosts, from benchtui(1) STATISTICS: pairs only
# within a host; the pooled estimate is the round's rule over all of
# them; each host's own beside it; each host's ratios against all the
# other hosts' ratios by the two-sample rule (tests/compare_ref.py) at
# level 1 - (1 - level) / H, H the hosts with ratios (level itself when
# H = 2: one comparison); of the hosts whose interval excludes 1, the one
# whose estimate is farthest from 1 is named and set aside, and the rest
# looked at again until none differs; two left are named together when
# they differ.

def hosts_rule(legs, level, margin, estimator="paired"):
    """legs: {rep: {arm: (host, value)}} of the two arms "a" (the arm)
    and "b" (its comparison arm), ok legs only.  Returns (pooled,
    {host: part}, depends, differ), pooled and each part a dict of n,
    estimate, ci, verdict, ratios."""
    import compare_ref
    hosts = []
    for rep in sorted(legs):
        for arm in sorted(legs[rep]):
            h = legs[rep][arm][0]
            if h is not None and h not in hosts:
                hosts.append(h)
    by = {h: [] for h in hosts}
    every = []
    for rep in sorted(legs):
        if "a" not in legs[rep] or "b" not in legs[rep]:
            continue
        (ha, x), (hb, y) = legs[rep]["a"], legs[rep]["b"]
        if ha != hb:
            continue
        every.append((x, y))
        if ha is not None:
            by[ha].append((x, y))

    def part(pairs):
        keep = [(x, y) for x, y in pairs
                if x is not None and y is not None and x > 0 and y > 0]
        rs = [x / y for x, y in keep]
        if estimator == "floor":
            est, ci = floor_interval([x for x, _ in keep],
                                     [y for _, y in keep], level)
        else:
            est, ci = interval(rs, level)
        return {"n": len(rs), "estimate": est, "ci": ci,
                "verdict": verdict(ci, margin), "ratios": rs}

    pooled = part(every)
    parts = {h: part(by[h]) for h in hosts}
    active = [h for h in hosts if parts[h]["n"] > 0]
    blevel = 1 - (1 - level) / len(active) if len(active) > 2 else level
    named = []
    while len(active) >= 2:
        best, far = None, -1.0
        for h in active:
            rest = [r for g in active if g != h for r in parts[g]["ratios"]]
            est, ci, _ = compare_ref.interval2(rest, parts[h]["ratios"],
                                               blevel)
            if ci is None or ci[0] <= 1 <= ci[1]:
                continue
            if abs(math.log(est)) > far:
                best, far = h, abs(math.log(est))
        if best is None:
            break
        if len(active) == 2:
            named += active
            break
        named.append(best)
        active.remove(best)
    differ = [h for h in hosts if h in named]
    return pooled, parts, bool(differ), differ
