"""CrafText: Craftax worlds with natural-language goals and JIT-compiled scenario checkers (in progress)."""
