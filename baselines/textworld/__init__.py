"""The worlds as text and knowledge graphs: JerichoWorld-style datasets and their scores.

``dataset``: records (observation text, graph, valid actions, action, next graph, diff) generated
inside jit from any registered world (``env.kg``, ``env.valid_actions``, ``env.verbalise``).
``metrics``: graph- and token-level precision / recall / F1 and both readings of exact match,
valid-action and diff scores, host and jitted. ``jericho``: reads JerichoWorld's released JSON.
Command line: ``python -m baselines.textworld generate | stats | score | import-jericho``.
"""
