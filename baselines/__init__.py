"""Baselines for the suite's worlds: vectorised wrappers now; PPO-T / PPO-T+ / FiLM agents to come."""
