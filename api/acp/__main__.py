"""``python -m quorum.acp``: what ``quorum acp`` runs (see ``quorum.acp.main``)."""

from quorum.acp.main import main

if __name__ == "__main__":
    main()
