"""A learned Hexagons painter: a Flax transformer that reads the instruction (with earlier ones as
context) and the current board, and predicts each tile's paint. The text goes through embeddings
and layers learned from scratch, or through the pretrained MiniLM fine-tuned end to end
(``--encoder minilm``).

    python -m baselines.painter train --data DIR --out RUN [--encoder learned|minilm] [--rule-hints] [--history none|previous|full]
    python -m baselines.painter evaluate RUN --data DIR --split test
    python -m baselines.painter compare RUN RUN [...] --out FILE.png   # dev curves against training minutes

``data`` turns procedures into examples, ``model`` is the network, ``train`` trains and scores it
in the paper's settings (oracle or predicted board).
"""
