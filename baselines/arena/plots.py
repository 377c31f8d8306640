"""Leaderboard pictures (PNG bytes; matplotlib's object API, so threads may draw at once)."""

from __future__ import annotations

import io

import numpy as np
from matplotlib.figure import Figure


def plain(text: str) -> str:
    """``text`` as matplotlib draws it literally: ``$`` (math mode) escaped."""
    return text.replace("$", r"\$")


def _png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


def ratings_png(rows: list[dict], title: str) -> bytes:
    """Two panels for one group's ``ratings.leaderboard`` rows: TrueSkill mu with mu +- 3 sigma, and
    the Bradley-Terry score with its 95% bootstrap interval (a hollow marker without one for an
    agent with too few judgements to rank); best on top. Names and title are drawn literally."""
    rows = sorted(rows, key=lambda r: r["conservative"])
    figure = Figure(figsize=(9, 1.4 + 0.45 * max(1, len(rows))), layout="constrained")
    left, right = figure.subplots(1, 2, sharey=True)
    y = np.arange(len(rows))
    names = [plain(f"{r['agent']} ({r['judgements']})") for r in rows]
    mu = np.array([r["mu"] for r in rows])
    sigma = np.array([r["sigma"] for r in rows])
    left.errorbar(mu, y, xerr=3 * sigma, fmt="o", color="#1f5fa0", capsize=3)
    left.set(yticks=y, yticklabels=names, xlabel="TrueSkill mu (bars: +- 3 sigma)", title="TrueSkill")
    bt = np.array([r["bt"] for r in rows])
    sure = np.array([r["rank"] is not None for r in rows], bool)
    low = np.array([r["bt_low"] if r["rank"] is not None else r["bt"] for r in rows])
    high = np.array([r["bt_high"] if r["rank"] is not None else r["bt"] for r in rows])
    right.errorbar(bt[sure], y[sure], xerr=[(bt - low)[sure], (high - bt)[sure]], fmt="s", color="#a0521f", capsize=3)
    right.scatter(bt[~sure], y[~sure], marker="s", facecolors="none", edgecolors="#a0521f", label="too few judgements to rank")
    if (~sure).any():
        right.legend(loc="lower right", fontsize=8)
    right.set(xlabel="Bradley-Terry score, Elo scale (bars: 95% bootstrap)", title="Bradley-Terry")
    for axis in (left, right):
        axis.grid(axis="x", alpha=0.3)
    figure.suptitle(plain(title))
    return _png(figure)


def win_matrix_png(agents: list[str], wins: np.ndarray, games: np.ndarray, title: str) -> bytes:
    """Heat map of row agent's share of points against column agent (draws half), with counts."""
    share = np.divide(wins, games, out=np.full(wins.shape, np.nan), where=games > 0)
    size = 1.6 + 0.7 * max(1, len(agents))
    figure = Figure(figsize=(size + 1.5, size), layout="constrained")
    axis = figure.subplots()
    image = axis.imshow(share, cmap="RdBu", vmin=0, vmax=1)
    axis.set(
        xticks=range(len(agents)),
        yticks=range(len(agents)),
        xticklabels=[plain(a) for a in agents],
        yticklabels=[plain(a) for a in agents],
        xlabel="against",
        ylabel="agent",
        title=plain(title),
    )
    axis.tick_params(axis="x", rotation=45)
    for i in range(len(agents)):
        for j in range(len(agents)):
            if games[i, j]:
                axis.text(
                    j,
                    i,
                    f"{share[i, j]:.2f}\n({games[i, j]})",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if abs(share[i, j] - 0.5) > 0.3 else "black",
                )
    figure.colorbar(image, ax=axis, label="share of points (draw = 1/2)")
    return _png(figure)
