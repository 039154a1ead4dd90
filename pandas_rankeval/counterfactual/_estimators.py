"""The estimators behind :func:`pandas_rankeval.counterfactual.propensities`: numpy only.

Every function takes cell statistics (one cell per (item, position) or per row) with one column
per bootstrap replicate, and iterates over EM steps or solves one small system per replicate;
nothing loops over groups or items.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["em_items", "em_features", "harvest", "components", "reduce_sorted", "start_theta", "SoftLogit", "scoring_features",
           "squarem_step"]

#: Probabilities are kept in [EPS, 1 - EPS] inside the E-step (0 and 1 make it 0 / 0).
EPS = 1e-9


def reduce_sorted(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Sums of consecutive runs of rows (``starts``: the first row of each run) of a 2-D array."""
    if values.shape[0] == 0:
        return np.zeros((len(starts), values.shape[1]))
    return np.add.reduceat(values, starts, axis=0)


def components(n_nodes: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected components of positions joined by edges (a, b): the smallest node of each node's
    component (label propagation; at most n_nodes sweeps over the edges)."""
    label = np.arange(n_nodes)
    if a.size == 0:
        return label
    for _ in range(n_nodes + 1):
        m = np.minimum(label[a], label[b])
        new = label.copy()
        np.minimum.at(new, a, m)
        np.minimum.at(new, b, m)
        new = new[new]  # jump to the representative's representative
        if np.array_equal(new, label):
            break
        label = new
    return label


def start_theta(ctr: np.ndarray) -> np.ndarray:
    """The EM's first examination probabilities: 0.9 times the click rate relative to the highest
    one (per replicate column), inside (0, 1).

    The position-based model is identified up to a scale (p_k c, r_i / c), so EM reports
    p_k / p_1. A start with p_1 = 1 would be a fixed point (an unclicked impression at a position
    examined with certainty is examined: the update keeps p_1 = 1), and as every p_k <= 1 no other
    position could then exceed position 1: grids and carousels, where a lower slot is seen more,
    need p_k / p_1 > 1. Starting every p_k strictly below 1 leaves every ratio reachable (0.9
    rather than 0.5: on uniform-random logs 8-10 SQUAREM iterations instead of 130-230, the same
    maximum)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = ctr / np.max(ctr, axis=0, keepdims=True)
    return np.clip(np.where(np.isfinite(rel), 0.9 * rel, 0.9), 0.005, 0.9)


def _normalized(theta: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return theta / theta[:1]


def _identified(theta: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """What the clicks identify, stacked: p_k / p_1 and r_i p_1 (the scale of p cancels). EM stops
    when none of them moves by ``tol``: the ratios alone can stall for a few iterations while the
    relevances still move (a start far from the likelihood's scale), and stop EM early."""
    return np.concatenate([_normalized(theta), gamma * theta[:1]])


def squarem_step(
    update: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    loglik: Callable[[np.ndarray, np.ndarray], Any],
    theta: np.ndarray,
    gamma: np.ndarray,
    *,
    axis: int | None,
) -> tuple[np.ndarray, np.ndarray]:
    """One SQUAREM step (Varadhan and Roland 2008, scheme S3) of the EM map ``update`` over
    (examination ``theta``, relevance ``gamma``): two EM steps, the extrapolation they imply (step
    length at least 1), one EM step from it, kept where its likelihood is not below the two plain
    steps'. ``axis=0`` runs independent problems side by side in the columns (each its own step
    length and choice); ``axis=None`` one problem."""
    t1, g1 = update(theta, gamma)
    t2, g2 = update(t1, g1)
    rt, rg = t1 - theta, g1 - gamma
    vt, vg = t2 - 2 * t1 + theta, g2 - 2 * g1 + gamma
    r_norm = np.sqrt((rt * rt).sum(axis=axis) + (rg * rg).sum(axis=axis))
    v_norm = np.sqrt((vt * vt).sum(axis=axis) + (vg * vg).sum(axis=axis))
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = np.minimum(-r_norm / v_norm, -1.0)
    alpha = np.where(np.isfinite(alpha), alpha, -1.0)  # no curvature (v = 0): a plain step
    ta, ga = update(np.clip(theta - 2 * alpha * rt + alpha * alpha * vt, EPS, 1 - EPS),
                    np.clip(gamma - 2 * alpha * rg + alpha * alpha * vg, EPS, 1 - EPS))
    better = loglik(ta, ga) >= loglik(t2, g2)
    return np.where(better, ta, t2), np.where(better, ga, g2)


def em_items(
    n: np.ndarray, c: np.ndarray, cell_pos: np.ndarray, cell_item: np.ndarray, n_pos: int, n_items: int,
    *, max_iter: int, tol: float, theta0: np.ndarray | None = None, gamma0: np.ndarray | None = None,
    tick: Callable[[], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """EM of the position-based model with one relevance per item, for every replicate at once.

    ``n``, ``c``: (cells x replicates) impressions and clicks of each (item, position) cell, the
    cells sorted by position (``cell_pos`` ascending). Each iteration is a SQUAREM step
    (Varadhan & Roland 2008): two EM updates, an extrapolation along them, and one more EM
    update from there, kept only where it raises the likelihood (else the plain second update):
    the same fixed points as EM, reached in far fewer iterations. Returns the examination
    probabilities (positions x replicates, not normalized), the relevances (items x
    replicates), the number of iterations and which replicates converged (bool per replicate: in
    some iteration no p_k / p_1 nor r_i p_1 moved by more than ``tol``). ``tick`` is called after
    each iteration (a progress bar's step).
    """
    pos_starts = np.flatnonzero(np.r_[True, cell_pos[1:] != cell_pos[:-1]])
    by_item = np.argsort(cell_item, kind="stable")
    items_sorted = cell_item[by_item]
    item_starts = np.flatnonzero(np.r_[True, items_sorted[1:] != items_sorted[:-1]])
    n_at_pos = reduce_sorted(n, pos_starts)
    n_of_item = reduce_sorted(n[by_item], item_starts)
    nc = n - c
    if theta0 is None:
        ctr = reduce_sorted(c, pos_starts) / np.maximum(n_at_pos, 1e-300)
        theta = start_theta(ctr)
    else:
        theta = np.broadcast_to(theta0, (n_pos, n.shape[1])).copy()
    if gamma0 is None:
        expected = reduce_sorted((n * theta[cell_pos])[by_item], item_starts)
        gamma = np.clip(reduce_sorted(c[by_item], item_starts) / np.maximum(expected, 1e-300), EPS, 1 - EPS)
    else:
        gamma = np.broadcast_to(gamma0, (n_items, n.shape[1])).copy()

    def update(theta: np.ndarray, gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = np.clip(theta[cell_pos], EPS, 1 - EPS)
        g = np.clip(gamma[cell_item], EPS, 1 - EPS)
        denom = 1.0 - t * g
        seen = c + nc * (t * (1.0 - g) / denom)       # expected examined impressions
        relevant = c + nc * ((1.0 - t) * g / denom)   # expected relevant impressions
        with np.errstate(invalid="ignore", divide="ignore"):
            theta_new = reduce_sorted(seen, pos_starts) / n_at_pos
            gamma_new = reduce_sorted(relevant[by_item], item_starts) / n_of_item
        return np.where(np.isfinite(theta_new), theta_new, theta), np.where(np.isfinite(gamma_new), gamma_new, gamma)

    def loglik(theta: np.ndarray, gamma: np.ndarray) -> np.ndarray:
        q = np.clip(theta[cell_pos] * gamma[cell_item], EPS, 1 - EPS)
        return (c * np.log(q) + nc * np.log1p(-q)).sum(axis=0)

    last = _identified(theta, gamma)
    done = np.zeros(n.shape[1], dtype=bool)
    it = 0
    for it in range(1, max_iter + 1):
        theta, gamma = squarem_step(update, loglik, theta, gamma, axis=0)
        now = _identified(theta, gamma)
        with np.errstate(invalid="ignore"):
            step = np.abs(now - last)
        done |= np.where(np.isfinite(step), step, 0.0).max(axis=0, initial=0.0) < tol
        last = now
        if tick is not None:
            tick()
        if done.all():
            break
    theta = np.where(n_at_pos > 0, theta, np.nan)
    return theta, gamma, it, done


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # no overflow for any z


class SoftLogit:
    """L2-penalized logistic regression on soft labels, by Newton's method from its last fit.

    Fitting it to posterior probabilities ``rel`` with weights ``w`` maximizes
    sum w (rel z - log(1 + e^z)) - |coef|^2 / (2 C), z = intercept + x coef: the objective of
    scikit-learn's ``LogisticRegression(C=C)`` (L2 penalty, intercept not penalized) fitted to each
    row twice (label 1 with weight w rel, label 0 with weight w (1 - rel)), which regression EM
    did in every M-step, without the copies and to full precision: the objective is strictly
    concave, Newton's method converges quadratically, and started at the last fit (the M-steps
    of consecutive EM updates move the coefficients little) it needs two or three steps.
    """

    def __init__(self, x: np.ndarray, c: float = 1.0, beta: np.ndarray | None = None) -> None:
        self.x1 = np.c_[np.ones(len(x)), x]
        self.c = c
        self.penalty = np.r_[0.0, np.full(x.shape[1], 1.0 / c)]
        self.beta = np.zeros(self.x1.shape[1]) if beta is None else beta.copy()
        self.n_steps = 0

    def subset(self, keep: np.ndarray) -> SoftLogit:
        """The same model (its current coefficients) on the rows ``keep`` only."""
        out = SoftLogit.__new__(SoftLogit)
        out.x1, out.c, out.penalty, out.beta, out.n_steps = self.x1[keep], self.c, self.penalty, self.beta.copy(), 0
        return out

    def _objective(self, z: np.ndarray, rel: np.ndarray, w: np.ndarray, beta: np.ndarray) -> float:
        softplus = np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z)))  # log(1 + e^z), faster than logaddexp
        return float(np.dot(w, rel * z - softplus) - 0.5 * np.dot(self.penalty, beta * beta))

    def fit_predict(self, rel: np.ndarray, w: np.ndarray, *, max_steps: int = 100, tol: float = 1e-9) -> np.ndarray:
        """Fit to ``rel`` (weights ``w``) from the current coefficients; the fitted probabilities.
        Stops after a Newton step whose largest change is below ``tol`` (the error left is
        about its square); a step that would lower the objective is halved."""
        x1, beta = self.x1, self.beta
        z = x1 @ beta
        value = self._objective(z, rel, w, beta)
        for _ in range(max_steps):
            p = _sigmoid(z)
            grad = x1.T @ (w * (rel - p)) - self.penalty * beta
            hess = (x1.T * (w * p * (1.0 - p))) @ x1 + np.diag(self.penalty)
            try:
                step = np.linalg.solve(hess, grad)
            except np.linalg.LinAlgError:
                step = np.linalg.lstsq(hess, grad, rcond=None)[0]
            self.n_steps += 1
            t = 1.0
            while True:
                new = beta + t * step
                z_new = x1 @ new
                value_new = self._objective(z_new, rel, w, new)
                if value_new >= value - 1e-12 * abs(value) or t < 1e-8:
                    break
                t *= 0.5
            size = float(np.max(np.abs(new - beta), initial=0.0))
            beta, z, value = new, z_new, value_new
            if size < tol:
                break
        self.beta = beta
        return _sigmoid(z)


def em_features(
    x: np.ndarray, y: np.ndarray, pos: np.ndarray, n_pos: int, weights: np.ndarray, model: Any,
    *, max_iter: int, tol: float, theta0: np.ndarray | None = None, gamma0: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """Regression EM (Wang et al. 2018): the relevance of a row is a classifier of its features,
    refitted in each M-step on the posterior probability of relevance, accelerated by SQUAREM
    (each iteration three EM updates, as in :func:`em_items`). One replicate (row weights
    ``weights``: rows may stand for several identical impressions).

    ``model`` is a :class:`SoftLogit` (fitted to the posteriors directly, from its last
    coefficients), or a scikit-learn classifier refitted in place in every M-step on each row
    twice (label 1 with weight w * r, label 0 with weight w * (1 - r); with ``warm_start`` it
    starts from its last fit). Returns theta (positions), the rows' relevance, iterations,
    converged."""
    keep = weights > 0
    x, y, pos, w = x[keep], y[keep], pos[keep], weights[keep]
    n_at_pos = np.bincount(pos, weights=w, minlength=n_pos)
    if theta0 is None:
        ctr = np.bincount(pos, weights=w * y, minlength=n_pos) / np.maximum(n_at_pos, 1e-300)
        theta = start_theta(ctr)
    else:
        theta = theta0.copy()
    if gamma0 is None:
        gamma = np.full(len(y), float(np.clip(np.average(y, weights=w) / max(np.average(theta[pos], weights=w), 1e-300), 0.01, 0.99)))
    else:
        gamma = gamma0[keep].copy()
    if isinstance(model, SoftLogit):
        soft = model if keep.all() else model.subset(keep)

        def fit(rel: np.ndarray) -> np.ndarray:
            return soft.fit_predict(rel, w)
    else:
        xx = np.concatenate([x, x])
        yy = np.r_[np.ones(len(y)), np.zeros(len(y))]

        def fit(rel: np.ndarray) -> np.ndarray:
            model.fit(xx, yy, sample_weight=np.r_[w * rel, w * (1.0 - rel)])
            classes = list(getattr(model, "classes_", [0.0, 1.0]))
            return np.asarray(model.predict_proba(x)[:, classes.index(1.0)])

    clicked = y > 0

    def update(theta: np.ndarray, gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = np.clip(theta[pos], EPS, 1 - EPS)
        g = np.clip(gamma, EPS, 1 - EPS)
        denom = 1.0 - t * g
        seen = np.where(clicked, 1.0, t * (1.0 - g) / denom)
        rel = np.where(clicked, 1.0, (1.0 - t) * g / denom)
        with np.errstate(invalid="ignore", divide="ignore"):
            theta_new = np.bincount(pos, weights=w * seen, minlength=n_pos) / n_at_pos
        return np.where(np.isfinite(theta_new), theta_new, theta), fit(rel)

    def loglik(theta: np.ndarray, gamma: np.ndarray) -> float:
        q = np.clip(theta[pos] * gamma, EPS, 1 - EPS)
        return float((w * np.where(clicked, np.log(q), np.log1p(-q))).sum())

    # SQUAREM over (p, the rows' relevances), as in em_items: the scale of p is weakly identified
    # (by the shape of the relevance model only), along which plain EM crawls
    last = _identified(theta[:, None], gamma[:, None])
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        theta, gamma = squarem_step(update, loglik, theta, gamma, axis=None)
        now = _identified(theta[:, None], gamma[:, None])
        with np.errstate(invalid="ignore"):
            step = np.abs(now - last)
        last = now
        if np.where(np.isfinite(step), step, 0.0).max(initial=0.0) < tol:
            converged = True
            break
    theta = np.where(n_at_pos > 0, theta, np.nan)
    full = np.full(len(keep), np.nan)
    full[keep] = gamma
    return theta, full, it, converged


def scoring_features(
    model: SoftLogit, y: np.ndarray, pos: np.ndarray, n_pos: int, weights: np.ndarray, theta0: np.ndarray,
    *, max_iter: int, tol: float,
) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """The maximum that :func:`em_features` reaches with a :class:`SoftLogit` model, by Fisher
    scoring on (p, coefficients) from (``theta0``, ``model.beta``): for bootstrap replicates,
    started at the whole log's estimate, where EM crawls along the weakly identified scale of p
    (hundreds of iterations) and scoring needs ten to twenty, each one pass over the rows.

    The likelihood is the same (clicks ~ Bernoulli(p_k sigmoid(x b)), the L2 penalty of the
    model); p stays in (0, 1] (a p at 1 whose gradient points out is held there); each step is
    halved until the likelihood does not drop; it stops by the rule of the EM (no p_k / p_1 and
    no identified relevance r p_1 moved by ``tol``). Returns theta (positions, not normalized),
    the coefficients, iterations, converged.
    """
    keep = weights > 0
    x1, y, pos, w = model.x1[keep], y[keep], pos[keep], weights[keep]
    penalty, clicked = model.penalty, y > 0
    d = x1.shape[1]
    seen = np.bincount(pos, weights=w, minlength=n_pos) > 0
    p, b = np.where(seen, theta0, 1.0), model.beta.copy()

    def value(p: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        s = _sigmoid(x1 @ b)
        q = np.clip(p[pos] * s, EPS, 1 - EPS)
        return float(np.dot(w, np.where(clicked, np.log(q), np.log1p(-q))) - 0.5 * np.dot(penalty, b * b)), s, q

    val, s, q = value(p, b)
    last = np.r_[p / p[0], s * p[0]]
    for it in range(1, max_iter + 1):
        ds, pk = s * (1.0 - s), p[pos]
        r = w * np.where(clicked, 1.0 / q, -1.0 / (1.0 - q))  # d loglik / d q
        fw = w / (q * (1.0 - q))                                 # Fisher weight of q
        grad = np.r_[np.bincount(pos, weights=r * s, minlength=n_pos), x1.T @ (r * pk * ds) - penalty * b]
        a = fw * s * pk * ds
        fisher = np.zeros((n_pos + d, n_pos + d))
        fisher[:n_pos, :n_pos] = np.diag(np.bincount(pos, weights=fw * s * s, minlength=n_pos))
        fisher[:n_pos, n_pos:] = np.stack([np.bincount(pos, weights=a * x1[:, j], minlength=n_pos) for j in range(d)], axis=1)
        fisher[n_pos:, :n_pos] = fisher[:n_pos, n_pos:].T
        fisher[n_pos:, n_pos:] = (x1.T * (fw * (pk * ds) ** 2)) @ x1 + np.diag(penalty)
        free = np.r_[seen & ~((p >= 1.0 - 1e-12) & (grad[:n_pos] > 0)), np.ones(d, dtype=bool)]
        step = np.zeros(n_pos + d)
        try:
            step[free] = np.linalg.solve(fisher[np.ix_(free, free)], grad[free])
        except np.linalg.LinAlgError:
            step[free] = np.linalg.lstsq(fisher[np.ix_(free, free)], grad[free], rcond=None)[0]
        t = 1.0
        while True:
            p_new, b_new = np.clip(p + t * step[:n_pos], EPS, 1.0), b + t * step[n_pos:]
            val_new, s_new, q_new = value(p_new, b_new)
            if val_new >= val - 1e-12 * abs(val) or t < 1e-6:
                break
            t *= 0.5
        p, b, val, s, q = p_new, b_new, val_new, s_new, q_new
        now = np.r_[p / p[0], s * p[0]]
        if np.abs(now - last).max(initial=0.0) < tol:
            return np.where(seen, p, np.nan), b, it, True
        last = now
    return np.where(seen, p, np.nan), b, max_iter, False


def pairs_within(cell_item: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i, j), i < j, of cells of the same item (cells sorted by item, then position)."""
    starts = np.flatnonzero(np.r_[True, cell_item[1:] != cell_item[:-1]])
    ends = np.r_[starts[1:], len(cell_item)]
    end_of = np.repeat(ends, ends - starts)
    count = end_of - np.arange(len(cell_item)) - 1
    a = np.repeat(np.arange(len(cell_item)), count)
    first = np.repeat(np.cumsum(count) - count, count)
    b = a + 1 + (np.arange(len(a)) - first)
    return a, b


def harvest(
    n: np.ndarray, c: np.ndarray, pair_a: np.ndarray, pair_b: np.ndarray, pos_a: np.ndarray, pos_b: np.ndarray,
    n_pos: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Intervention harvesting (Agarwal et al. 2019), every replicate at once.

    For each pair of positions k < k', the interventional set S(k, k') holds the items shown at
    k by one ranker and at k' by another (``pair_a`` at ``pos_a`` = k, ``pair_b`` at ``pos_b`` =
    k': cell indices). Its click rates summed over the set, c_k = sum_S C_ik / N_ik and c_k' =
    sum_S C_ik' / N_ik', estimate p_k * R and p_k' * R (R the set's summed relevance), so
    log(c_k / c_k') = log p_k - log p_k'. The log propensities relative to position 1 are the
    weighted least squares fit of every pair's log ratio, weight 1 / (1 / clicks_k + 1 / clicks_k')
    (the pair's clicks on each side: the delta-method variance of a log ratio of counts).

    ``n``, ``c``: (cells x replicates). Returns propensities relative to position 1 (positions x
    replicates; NaN where a replicate leaves a position unconnected), the pair (k, k') codes and
    their weights in the first replicate.
    """
    n_rep = n.shape[1]
    valid = (n[pair_a] > 0) & (n[pair_b] > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ctr_a = np.where(valid, c[pair_a] / n[pair_a], 0.0)
        ctr_b = np.where(valid, c[pair_b] / n[pair_b], 0.0)
    code = pos_a * n_pos + pos_b
    order = np.argsort(code, kind="stable")
    code_sorted = code[order]
    starts = np.flatnonzero(np.r_[True, code_sorted[1:] != code_sorted[:-1]]) if len(code) else np.zeros(0, int)
    kinds = code_sorted[starts]
    ka, kb = kinds // n_pos, kinds % n_pos
    sum_a = reduce_sorted(ctr_a[order], starts)
    sum_b = reduce_sorted(ctr_b[order], starts)
    clicks_a = reduce_sorted(np.where(valid, c[pair_a], 0.0)[order], starts)
    clicks_b = reduce_sorted(np.where(valid, c[pair_b], 0.0)[order], starts)
    ok = (clicks_a > 0) & (clicks_b > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.where(ok, np.log(sum_a) - np.log(sum_b), 0.0)
        w = np.where(ok, 1.0 / (1.0 / clicks_a + 1.0 / clicks_b), 0.0)
    # design: +1 at k, -1 at k', position 1 (code 0) fixed at log p = 0
    design = np.zeros((len(kinds), n_pos))
    design[np.arange(len(kinds)), ka] += 1.0
    design[np.arange(len(kinds)), kb] -= 1.0
    design = design[:, 1:]
    out = np.full((n_pos, n_rep), np.nan)
    out[0] = 1.0
    if n_pos == 1:
        return out, kinds, w[:, 0] if w.size else w
    # normal equations per replicate: (A' W A) x = A' W y
    lhs = np.einsum("ti,tb,tj->bij", design, w, design)
    rhs = np.einsum("ti,tb,tb->bi", design, w, y)
    for b in range(n_rep):  # a (positions - 1)-sized system per replicate
        reached = components(n_pos, ka[w[:, b] > 0], kb[w[:, b] > 0])
        if not (reached == 0).all():
            continue
        out[1:, b] = np.exp(np.linalg.solve(lhs[b], rhs[b]))
    return out, kinds, w[:, 0] if w.size else w
