"""``python -m quorum.serve``: what ``quorum serve`` runs (see ``quorum.serve.server``)."""

from quorum.serve.server import main

if __name__ == "__main__":
    main()
