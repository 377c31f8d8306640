"""BAP v2 Builder models (Jayannavar et al., sec. 2.6, 6 and appendix 12): predict the Builder's next
actions from the dialogue and the world, trained on the Minecraft Dialogue Corpus and the
simulators' data, decoded in the JAX blocks world and scored by ``blocksworld.metrics``.

``python -m baselines.builder train|evaluate|compare`` (see ``baselines/builder/__main__.py``); models in
``model``, arrays and training sets in ``data``, the loss, decoder and loop in ``train``, tables and
floors in ``evaluate``.
"""

MODELS = ("gru", "transformer")
"""Decoders (``TrainConfig.model``), the default first."""
WORLDS = ("set", "cnn")
"""World encoders (``TrainConfig.world_encoder``), the default first."""
EMBEDDINGS = ("minilm", "learned")
"""GRU word embeddings (``TrainConfig.embeddings``), the default first."""
SELECT = ("dev_loss", "dev_strict_f1", "dev_fairer_f1", "dev_corpus_strict_f1", "dev_corpus_fairer_f1")
"""Dev metrics (``metrics.jsonl`` columns) that can choose a run's best params (``TrainConfig.select``),
the default first; ``dev_corpus_*``: the corpus's dev items alone (runs with ``--data``)."""
CHECKPOINTS = ("best", "latest")
"""Which params of a run evaluation reads (``train.load_params``), the default first: ``best/`` (the
epoch ``select`` kept) or the latest epoch of ``checkpoints/``."""
