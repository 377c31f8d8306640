"""Pairwise human evaluation of agents' episodes (BEDD / BASALT style), with ratings derived from
the raw judgements: TrueSkill (the headline) and Bradley-Terry with bootstrap intervals. Blind
by construction: the arena renders its own videos, which never show the agent, its return or its
actions.

    python -m baselines.arena add-agent NAME --db arena.sqlite
    python -m baselines.arena add-episodes DIR --agent NAME --db arena.sqlite   # clean videos rendered by replay
    python -m baselines.arena add-rater NAME [--admin] --db arena.sqlite        # prints the token once
    python -m baselines.arena serve --db arena.sqlite [--host 127.0.0.1 --port 8000]
    python -m baselines.arena ratings --db arena.sqlite [--out DIR]
    python -m baselines.arena export --db arena.sqlite --out judgements.csv
    python -m baselines.arena import-basalt updated_human_answers.json [--banned banned_workers.json] --db arena.sqlite

``store`` is the database (append-only judgements), ``questions`` what raters are asked per
world, ``scheduler`` which pair comes next, ``ratings`` TrueSkill and Bradley-Terry, ``server``
the web app, ``ingest`` episodes and BASALT's judgements in.
"""
