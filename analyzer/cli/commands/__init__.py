"""One module per ``fairalloc`` subcommand; each defines ``register(sub)``."""
