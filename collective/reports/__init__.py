"""What the front door's verbs return, as typed shapes (TypedDicts: a JSON object is the
point). The Agent returns them (or a result object whose to_dict gives one), `cmem ...
--json` prints them and the MCP tools return them, all through `to_json`. The shapes
the CLI's help, the reference and the MCP descriptions document are written from these
(`documented`), the MCP tools' output schemas too (the SDK reads the tools'
annotations), and `mismatches` says where a value strays from its shape, so a test
fails when they disagree. `cmem --help` imports this: it imports nothing heavy."""

from .collective import (DreamReport, KeyDecision, KeyRotation, PeerReport, PeersReport, Proposal, ProposalReport,
                         SyncWindowReport, SyncWork, TrustEvent, TrustLedger)
from .exchange import PEER_STATUSES, BranchTampered, PeerPullReport, PullReport, PushReport, StatusCounts, StatusReport
from .memory import (ChallengeReport, CommitRecord, ForgetReport, Judgement, ListedMemory, ListReport, LogReport, MemoryRecord,
                     RecallHitReport, RecallReport, ShowReport, StabilityReport, StoreReport, UpdateReport)
from .review import DecidedDispute, DisputeReport, DisputeSide, Reopening, Verdict
from .shapes import compact, documented, mismatches, plain, shape_lines, shape_text, to_json

__all__ = [
    "BranchTampered", "ChallengeReport", "CommitRecord", "DecidedDispute", "DisputeReport", "DisputeSide", "DreamReport", "ForgetReport", "Judgement",
    "KeyDecision", "KeyRotation", "ListReport", "ListedMemory", "LogReport", "MemoryRecord", "PEER_STATUSES", "PeerPullReport",
    "PeerReport", "PeersReport", "Proposal", "ProposalReport", "PullReport", "PushReport", "RecallHitReport",
    "RecallReport", "Reopening", "ShowReport", "StabilityReport", "StatusCounts", "StatusReport", "StoreReport",
    "SyncWindowReport", "SyncWork", "TrustEvent", "TrustLedger", "UpdateReport", "Verdict", "compact",
    "documented", "mismatches", "plain", "shape_lines", "shape_text", "to_json",
]
