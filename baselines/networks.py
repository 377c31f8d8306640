"""PPO-T, PPO-T+ and FiLM actor-critics (Flax), one module for every world.

All three share the world encoder's shape, the GRU and the heads, so only the conditioning differs
(the official FiLM baseline had no GRU, which confounds conditioning with memory):

* **PPO-T**: world features (Dense 256, ReLU) concatenated with the frozen instruction embedding
  (Dense 256, ReLU), then a GRU of ``layer_size`` and two 2x``layer_size`` ReLU heads.
* **PPO-T+**: PPO-T plus the embedded plan (Dense 256, ReLU) in the concatenation.
* **FiLM**: the instruction embedding goes through Dense 64 -> Dense 64 -> LayerNorm (``e``); every
  block of the world encoder (conv for pixels, dense for vectors) is LayerNorm -> ReLU -> residual
  FiLM ``(1 + gamma(e)) * h + beta(e)``; ``e`` is also concatenated before the GRU. gamma / beta
  start at zero (identity modulation), unlike the official code's random start.

Factored action heads (``action_factors``, e.g. Hexagons (row, column, colour), blocks world (x, y,
z, per-cell action)): the first ``prod(factors)`` actions are a mixed-radix grid whose logit is the
sum of one logit per factor (``sum(factors)`` outputs instead of ``prod``); the remaining actions
(STOP) get their own logits. A categorical over all actions either way, so PPO is unchanged.

World encoder: pixels (H, W, C) -> 3 x [Conv 32 5x5 SAME -> ReLU -> max-pool 3/3] (63 -> 2 on
Craftax Classic); vectors (D,) -> 2 x Dense 256. ``world_encoder="conv"`` (``task_network``), for a
world whose vector starts with a map (``Task.map_shape``, e.g. Craftax Classic's symbolic 7 x 9 view
of 21 one-hot channels): 2 x [Conv 32 3x3 SAME -> ReLU] over that map first, its output flattened
beside the rest of the vector, then the same 2 x Dense 256. ``placed_channel`` (``task_network``), for
a world with ``Task.placed_cells``: the map gains a channel marking the cells that hold a block the
agent placed, which the agent works out from its own observations; what it keeps between steps
follows the GRU's state in the carry (``initial_hidden``). Inputs are time-major: every array has
leading (T, B) axes. The carry is zeroed where ``reset`` is set (the observation starts an episode).
"""

from __future__ import annotations

import functools
import warnings

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from baselines.configs import POLICIES, NetworkConfig
from baselines.worlds.task import PlacedCells

with warnings.catch_warnings():  # distrax's tensorflow_probability substrate reads a deprecated jax name on import
    warnings.filterwarnings("ignore", "jax.core.pytype_aval_mappings is deprecated", DeprecationWarning)
    import distrax


def _orthogonal(scale: float = 1.0):
    """Flax's orthogonal initialiser, drawing one seed's matrix after another under ``vmap``
    (``jax.custom_batching``) instead of a batched QR: with jaxlib 0.10.2, XLA:CPU can deadlock on
    several batched QRs in one program, as in ``jax.jit(jax.vmap(train))`` over seeds. Unbatched it
    computes exactly what ``nn.initializers.orthogonal(scale)`` does."""
    init = nn.initializers.orthogonal(scale)

    def draw_init(key: Array, shape: tuple[int, ...], dtype=jnp.float32) -> Array:
        @jax.custom_batching.custom_vmap
        def draw(raw: Array) -> Array:
            return init(jax.random.wrap_key_data(raw), shape, dtype)

        @draw.def_vmap
        def one_after_another(axis_size, in_batched, raw):
            return (jax.lax.map(draw, raw), True) if in_batched[0] else (draw(raw), False)

        return draw(jax.random.key_data(key))

    return draw_init


_ORTHO = _orthogonal


class FiLM(nn.Module):
    """Residual feature-wise affine modulation of (..., C) features by a text code ``e`` (..., E)."""

    @nn.compact
    def __call__(self, h: Array, e: Array) -> Array:
        c = h.shape[-1]
        gamma = nn.Dense(c, kernel_init=nn.initializers.zeros, name="gamma")(e)
        beta = nn.Dense(c, kernel_init=nn.initializers.zeros, name="beta")(e)
        extra = (1,) * (h.ndim - e.ndim)
        shape = e.shape[:-1] + extra + (c,)
        return (1.0 + gamma.reshape(shape)) * h + beta.reshape(shape)


class MapConv(nn.Module):
    """A 3 x 3 convolution with SAME zero padding over (N, H, W, C) -> (N, H, W, features), computed
    as one matrix product over the 3 x 3 patches (XLA:CPU runs small convolutions and their
    gradients many times slower than the same product)."""

    features: int

    @nn.compact
    def __call__(self, grid: Array) -> Array:
        h, w = grid.shape[1:3]
        padded = jnp.pad(grid, ((0, 0), (1, 1), (1, 1), (0, 0)))
        patches = jnp.concatenate([padded[:, i : i + h, j : j + w] for i in range(3) for j in range(3)], -1)
        return nn.Dense(self.features)(patches)


class WorldEncoder(nn.Module):
    """(N, H, W, C) or (N, D) world features -> (N, 256); FiLM-modulated when ``e`` is given.
    ``map_shape``: (H, W, C) of the map the first H * W * C vector features hold, read by convolutions."""

    pixels: bool
    map_shape: tuple[int, ...] = ()

    @nn.compact
    def __call__(self, world: Array, e: Array | None = None) -> Array:
        x = world
        if self.map_shape and not self.pixels:
            cells = int(np.prod(self.map_shape))
            grid = x[:, :cells].reshape(x.shape[0], *self.map_shape)
            for _ in range(2):
                grid = nn.relu(MapConv(32)(grid))
            x = jnp.concatenate([grid.reshape(x.shape[0], -1), x[:, cells:]], -1)
        if self.pixels:
            for _ in range(3):
                x = nn.Conv(32, (5, 5), padding="SAME")(x)
                x = FiLM()(nn.relu(nn.LayerNorm()(x)), e) if e is not None else nn.relu(x)
                x = nn.max_pool(x, (3, 3), strides=(3, 3))
            x = x.reshape(x.shape[0], -1)
            return nn.relu(nn.Dense(256, kernel_init=_ORTHO(np.sqrt(2)))(x))
        for _ in range(2):
            x = nn.Dense(256, kernel_init=_ORTHO(np.sqrt(2)))(x)
            x = FiLM()(nn.relu(nn.LayerNorm()(x)), e) if e is not None else nn.relu(x)
        return x


class ScannedGRU(nn.Module):
    """A GRU over the time axis; the carry restarts from zeros where ``reset``."""

    @functools.partial(nn.scan, variable_broadcast="params", in_axes=0, out_axes=0, split_rngs={"params": False})
    @nn.compact
    def __call__(self, carry: Array, inputs: tuple[Array, Array]) -> tuple[Array, Array]:
        x, reset = inputs
        carry = jnp.where(reset[:, None], jnp.zeros_like(carry), carry)
        carry, y = nn.GRUCell(features=carry.shape[-1], recurrent_kernel_init=_ORTHO())(carry, x)
        return carry, y


def _head(x: Array, width: int, out: int, scale: float) -> Array:
    for _ in range(2):
        x = nn.relu(nn.Dense(width, kernel_init=_ORTHO(2.0))(x))
    return nn.Dense(out, kernel_init=_ORTHO(scale))(x)


class ActorCritic(nn.Module):
    """hidden (B, layer_size [+ placed.size]), inputs -> (hidden, pi over (T, B) actions, value (T, B)).

    inputs: world (T, B, *world), instruction (T, B, E), plan (T, B, E') or None, reset (T, B) bool,
    mask (T, B, A) bool. Infeasible actions (mask False) get probability 0.
    """

    num_actions: int
    policy: str = "ppo-t"
    pixels: bool = False
    layer_size: int = 512
    action_factors: tuple[int, ...] = ()
    map_shape: tuple[int, ...] = ()
    placed: PlacedCells | None = None

    @nn.compact
    def __call__(self, hidden: Array, world: Array, instruction: Array, plan: Array | None, reset: Array, mask: Array):
        t, b = reset.shape
        if self.placed is not None:
            hidden, memory = hidden[:, : self.layer_size], hidden[:, self.layer_size :]
            memory, world = _mark_placed(self.placed, memory, world, reset)
        flat = world.reshape((t * b,) + world.shape[2:])
        if self.policy == "film":
            e = nn.LayerNorm()(nn.Dense(64)(nn.relu(nn.Dense(64)(instruction.reshape(t * b, -1)))))
            parts = [WorldEncoder(self.pixels, self.map_shape)(flat, e), e]
        else:
            parts = [
                WorldEncoder(self.pixels, self.map_shape)(flat),
                nn.relu(nn.Dense(256, kernel_init=_ORTHO(np.sqrt(2)))(instruction.reshape(t * b, -1))),
            ]
            if self.policy == "ppo-t+":
                parts.append(nn.relu(nn.Dense(256, kernel_init=_ORTHO(np.sqrt(2)))(plan.reshape(t * b, -1))))
        z = jnp.concatenate(parts, -1).reshape(t, b, -1)
        hidden, y = ScannedGRU()(hidden, (z, reset))
        if self.placed is not None:
            hidden = jnp.concatenate([hidden, memory], -1)
        logits = self._logits(y)
        logits = jnp.where(mask, logits, -1e9)
        value = _head(y, self.layer_size, 1, 1.0)[..., 0]
        return hidden, distrax.Categorical(logits=logits), value

    def _logits(self, y: Array) -> Array:
        """(..., layer_size) -> (..., num_actions) logits, factored when ``action_factors``."""
        if not self.action_factors:
            return _head(y, self.layer_size, self.num_actions, 0.01)
        grid = int(np.prod(self.action_factors))
        out = _head(y, self.layer_size, sum(self.action_factors) + self.num_actions - grid, 0.01)
        parts = jnp.split(out, np.cumsum(self.action_factors), axis=-1)
        total = parts[0]
        for part in parts[1:-1]:
            total = total[..., :, None] + part[..., None, :]
            total = total.reshape(*total.shape[:-2], -1)
        return jnp.concatenate([total, parts[-1]], -1)

    def initial_hidden(self, batch: int) -> Array:
        """(batch, layer_size) zeros, then the ``placed.size`` floats of the placed-cells memory."""
        return jnp.zeros((batch, self.layer_size + (self.placed.size if self.placed else 0)), jnp.float32)


def _mark_placed(placed: PlacedCells, memory: Array, world: Array, reset: Array) -> tuple[Array, Array]:
    """(B, size) memory after (T, B, D) world features, and the (T, B, D + H * W) features with
    their placed-cells channel; the memory restarts from zeros where ``reset``."""

    def step(memory, inputs):
        world, reset = inputs
        return jax.vmap(placed.mark)(jnp.where(reset[:, None], 0.0, memory), world)

    return jax.lax.scan(step, memory, (world, reset))


def make_network(
    policy: str,
    num_actions: int,
    pixels: bool,
    layer_size: int = 512,
    action_factors: tuple[int, ...] = (),
    map_shape: tuple[int, ...] = (),
    placed: PlacedCells | None = None,
) -> ActorCritic:
    """An ``ActorCritic`` for ``policy`` in ``POLICIES``; ``placed``: the agent-side placed-cells
    channel to add to the world features (``Task.placed_cells``)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    if action_factors and (min(action_factors) < 1 or int(np.prod(action_factors)) > num_actions):
        raise ValueError(f"action_factors {action_factors} must be positive with a product <= num_actions={num_actions}")
    return ActorCritic(num_actions, policy, pixels, layer_size, tuple(action_factors), tuple(map_shape), placed)


def task_network(config: NetworkConfig, task) -> ActorCritic:
    """The network of ``config`` for ``task``'s world and actions; ValueError naming the setting a
    world cannot take."""
    config.validate()
    if config.world_encoder == "conv" and not task.map_shape:
        raise ValueError(f"world_encoder conv reads a map at the start of the world features (Task.map_shape); {task.name} has none")
    if config.placed_channel and task.placed_cells is None:
        raise ValueError(f"placed_channel marks cells of a view map the agent placed blocks in (Task.placed_cells); {task.name} has none")
    placed = task.placed_cells if config.placed_channel else None
    return make_network(
        config.policy,
        task.num_actions,
        task.pixels,
        config.layer_size,
        task.action_factors if config.factored_actions else (),
        (placed.map_shape if placed else task.map_shape) if config.world_encoder == "conv" else (),
        placed,
    )


def count_parameters(params) -> int:
    """Number of scalars in a parameter tree."""
    return int(sum(np.prod(x.shape) for x in jax.tree.leaves(params)))
