"""``python -m benchmarks.scaling``: env steps/s vs number of devices, the per-device batch fixed.

Every world's batch of ``--per-device-envs`` x n worlds is sharded over a 1-D ``data`` mesh of the
first n devices (``measure_env(mesh=...)``, as PPO shards its environments), for n in
``--devices``. Ideal scaling is linear in n. On a CPU-only machine the devices are forced host
devices (``--xla_force_host_platform_device_count``, set here before JAX starts): they share the
machine's cores, so the curve shows the sharding overhead and the cores' limit, not more hardware;
on a GPU machine they are the real GPUs. Writes ``scaling.{json,md,png}`` under ``--out`` (default
``runs/benchmarks/<device>``; files already there are replaced only with ``--overwrite``).
"""

from __future__ import annotations

import os

if __name__ == "__main__" and "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()

import argparse  # noqa: E402
import json  # noqa: E402
from pathlib import Path  # noqa: E402

from baselines.plots import write_png
from baselines.worlds import cli  # noqa: E402
from benchmarks import RESULTS_OUT  # noqa: E402
from benchmarks.__main__ import results_folder  # noqa: E402
from benchmarks.worlds import bench_worlds, benchmark_of, chosen_worlds  # noqa: E402

FILES = ("scaling.json", "scaling.md", "scaling.png")


def measure_scaling(worlds: list[str], devices: list[int], per_device_envs: int, num_steps: int, repeats: int) -> list[dict]:
    """One row per (world, number of devices): steps/s (median, min, max) and the speed-up over one device."""
    import jax  # here, not at the top: --help starts without JAX
    import numpy as np
    from jax.sharding import Mesh

    from benchmarks.env_sps import measure_env

    table = bench_worlds()
    rows = []
    for world in worlds:
        env, params = table[world].make()
        base = None
        for n in devices:
            mesh = Mesh(np.asarray(jax.devices()[:n]), ("data",))
            result = measure_env(
                env, params, per_device_envs * n, num_steps, repeats, reset_ratio=table[world].settings.reset_ratio, mesh=mesh
            )
            base = base or result["steps_per_s_median"]
            row = {"world": world, "devices": n, "num_envs": per_device_envs * n, **result, "speedup": result["steps_per_s_median"] / base}
            rows.append(row)
            print(
                f"{world:<30} {n} devices x {per_device_envs} envs: {row['steps_per_s_median']:>12,.0f} steps/s  x{row['speedup']:.2f} "
                f"(ideal x{n})  compile {row['compile_s']:.1f} s",
                flush=True,
            )
    return rows


def write(rows: list[dict], info: dict, out: Path, per_device_envs: int) -> None:
    """scaling.json, scaling.md and scaling.png (speed-up vs devices, the ideal line beside it)."""
    out.mkdir(parents=True, exist_ok=True)
    cli.write_atomic(out / "scaling.json", json.dumps({"device": info, "per_device_envs": per_device_envs, "results": rows}, indent=2))
    lines = [
        f"Device: {info['device']} ({info['num_devices']} devices, {info['host_cpus']} host CPUs), jax {info['jax']}; "
        f"{per_device_envs} worlds per device.",
        "",
        "| world | devices | num_envs | steps/s (median) | speed-up | ideal |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {r['world']} | {r['devices']} | {r['num_envs']} | {r['steps_per_s_median']:,.0f} | {r['speedup']:.2f} | {r['devices']} |"
        for r in rows
    ]
    cli.write_atomic(out / "scaling.md", "\n".join(lines) + "\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4))
    devices = sorted({r["devices"] for r in rows})
    ax.plot(devices, devices, "k--", label="ideal (linear)")
    for world in dict.fromkeys(r["world"] for r in rows):
        ax.plot(*zip(*[(r["devices"], r["speedup"]) for r in rows if r["world"] == world]), marker="o", label=world)
    ax.set(
        xlabel="devices",
        ylabel="env steps/s relative to 1 device",
        xticks=devices,
        title=f"{info['device']}, {per_device_envs} worlds per device",
    )
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    write_png(fig, out / "scaling.png", dpi=120)
    plt.close(fig)


def parser() -> argparse.ArgumentParser:
    from baselines import worlds

    defaults = [f.default_id for f in worlds.families() if benchmark_of(f).scaling]
    p = argparse.ArgumentParser(prog="python -m benchmarks.scaling", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", nargs="+", default=defaults, metavar="ID", help=f"worlds to measure (default {' '.join(defaults)})")
    p.add_argument("--devices", nargs="+", type=int, default=[1, 2, 4, 8], help="device counts to measure (default 1 2 4 8)")
    p.add_argument("--per-device-envs", type=int, default=128)
    p.add_argument("--num-steps", type=int, default=32)
    p.add_argument("--repeats", type=int, default=3)
    cli.add_out(p, RESULTS_OUT)
    return p


def main(argv: list[str] | None = None) -> list[dict]:
    p = parser()
    args = cli.parse(p, argv)
    chosen_worlds(p, args.env)
    import jax

    if max(args.devices) > jax.device_count():
        p.error(f"--devices {max(args.devices)}: only {jax.device_count()} devices here")
    info, out = results_folder(args, FILES)
    print(f"device {info['device']}, {info['num_devices']} devices, {info['host_cpus']} host CPUs, jax {info['jax']}", flush=True)
    rows = measure_scaling(args.env, args.devices, args.per_device_envs, args.num_steps, args.repeats)
    write(rows, info, out, args.per_device_envs)
    print(f"wrote {out}/scaling.json, scaling.md, scaling.png")
    return rows


if __name__ == "__main__":
    main()
