"""Baselines for the suite's worlds: PPO-T, PPO-T+ and FiLM agents (PPO), behavioural cloning, the Builder models, evaluation, episodes."""
