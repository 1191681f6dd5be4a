"""``python -m analyzer`` runs the fairalloc command line."""

from .cli.entry import main

if __name__ == "__main__":
    main()
