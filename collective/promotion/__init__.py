"""Promotions to main: proposals, endorsements, a person's decision, and the consensus branch."""

from .service import Promotions

__all__ = ["Promotions"]
