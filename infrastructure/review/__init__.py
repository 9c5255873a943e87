"""Review of high-risk calls: policy rules, a quorum of reviewer models, and the human step.

The composition (``quorum.composition``) calls ``build_reviewer(ReviewerContext(...),
registry=catalog.reviewers)`` once per run and hands the result (the application's ``ReviewGate``)
to ``RunAgent``. ``call_view`` is the call preview every driver shows a person before a call runs.
"""

from quorum.infrastructure.review.auto import AutoReviewer
from quorum.infrastructure.review.call_viewer import WorkspaceCallViewer
from quorum.infrastructure.review.factory import build_auto, build_human, build_quorum
from quorum.infrastructure.review.human import HumanAnswer, HumanPrompt, HumanRequest, HumanReviewer
from quorum.infrastructure.review.pipeline import build_reviewer
from quorum.infrastructure.review.quorum import QuorumReviewer
from quorum.infrastructure.review.scope import ApprovalScope
from quorum.infrastructure.review.settings import ReviewSettings
from quorum.infrastructure.review.voters import ModelVoter, ReviewerVoter, Voter

__all__ = [
    "ApprovalScope",
    "AutoReviewer",
    "HumanAnswer",
    "HumanPrompt",
    "HumanRequest",
    "HumanReviewer",
    "ModelVoter",
    "QuorumReviewer",
    "ReviewSettings",
    "ReviewerVoter",
    "Voter",
    "WorkspaceCallViewer",
    "build_auto",
    "build_human",
    "build_quorum",
    "build_reviewer",
]
