"""Episodes: files of (world, seed, actions), exact replay, videos, and playing in a browser.

    python -m baselines.episodes render DIR --out VIDEOS [--formats mp4,webm,gif]
    python -m baselines.episodes play --env ID [--port 8000] [--out DIR]
    python -m baselines.episodes record --env ID --policy random|expert|agent [--run RUN] --out DIR
    python -m baselines.episodes replay FILE...
    python -m baselines.episodes index DIR

The format and the key rule are in ``baselines.worlds.episode``.
"""
