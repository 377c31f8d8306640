"""Blocks world: the Minecraft Collaborative Building Task grid for Builder Action Prediction (in progress)."""
