#!/usr/bin/env python3
"""Recall quality: does Agent.recall find the memory that answers a question?

Each question set is a list of memories and a list of questions, each question
naming the memories that answer it (none for a question the store cannot answer).
The memories go into a fresh temporary agent (embedded engine, the default
all-MiniLM-L6-v2 embedder), each with the vector that embedder gives its text, and
every question is then answered four ways in the same run:

- recall: `agent.recall(question, k=K)`, the system under test (it embeds the
  question itself; its relevance floor may return fewer than K, or nothing).
  The questions run in file order on one agent (with --limit, taken in turn from
  each kind), so the access counts that each recall adds (recall's boost) reach
  the later questions, as in real use.
- cosine: numpy top-K by cosine over the same memory vectors.
- bm25: textbook Okapi BM25 (k1 1.2, b 0.75, idf log(1 + (N - df + 0.5) / (df + 0.5)))
  over lowercase alphanumeric tokens, English stopwords removed, no stemming.
  Only memories sharing a term with the question score, so it can return nothing.
- rrf: reciprocal rank fusion of cosine and bm25 (1 / (60 + rank), each list
  100 deep).

Per set and method, over the answerable questions: hit@1, hit@5, hit@10 (a
right memory among the first n), recall@10 (share of the right memories in the
first 10) and MRR@10; over the unanswerable ones: share_empty, the share where the
method returned nothing (0 for cosine by construction); the same by question kind;
and the p50/p95 latency of one query (recall's includes embedding the question).

Sets (--set):
  dev     scripts/recall_data/dev.json: an agent's world written for this
          benchmark; tune against it.
  blind   scripts/recall_data/blind.json: another world, same style, kept for a
          final score. Scored only when named alone (--set blind); `all` leaves it
          out. --validate checks it without scoring it.
  conversation
          scripts/recall_data/conversation_dev.json: two long chats between
          friends (12 dated sessions each), every turn one memory, stored as
          "Speaker: text" (--plain-turns: the text alone); questions ask about
          the people by name. Tune against it.
  conversation-blind, conversation-blind2
          conversation_blind.json, conversation_blind2.json: two other chats
          each, same style, kept for a final score like blind.
  public  the Python 3.11 FAQ: its questions, with the answer passages that follow
          them as the right memories, among the passages of the tutorial and the
          HOWTOs. Built from Debian's python3.11-doc package (PSF License), fetched with
          `apt-get download` into ${CMEM_TOOLS_CACHE:-~/.cache/collective-memory}/
          recall-data on first use and reused after (--install does only that).
  all     dev, conversation and public.

Per set with unanswerable questions, one more line ("answerability"): how well
the own relevance of recall's best hit tells a question with an answer stored
from one without (AUC, 0.5 being chance), and the share of the unanswerable a
floor on it would answer with "nothing recalled" if set where it empties 5% of
the answerable; the best cosine, as the same sign, is its baseline.

Output: one JSON line per (set, method), the answerability lines and a summary
line on stdout; --table prints a table to stderr as well.

    python scripts/bench_recall_quality.py                 # dev and public, k 10
    python scripts/bench_recall_quality.py --set dev --table
    python scripts/bench_recall_quality.py --validate      # every set, no scoring
    python scripts/bench_recall_quality.py --quick         # dev, 20 questions: seconds
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import collective  # noqa: F401  (first: sqlite3 speaks Dolt)
import numpy as np

from collective.agent import Agent, MemoryInput

from benchkit import parse_args

DATA_DIR = Path(__file__).resolve().parent / "recall_data"
SETS = {"dev": DATA_DIR / "dev.json", "blind": DATA_DIR / "blind.json",
        "conversation": DATA_DIR / "conversation_dev.json",
        "conversation-blind": DATA_DIR / "conversation_blind.json",
        "conversation-blind2": DATA_DIR / "conversation_blind2.json"}
KINDS = ("full", "keyword", "paraphrase", "number", "single", "temporal", "multi", "none")
METHODS = ("recall", "cosine", "bm25", "rrf")
QUICK = {"set": "dev", "limit": 20}
ANSWERED_COST = 0.05  # the share of answerable questions a floor may empty, for `answerability`
RRF_K, RRF_DEPTH = 60, 100
BM25_K1, BM25_B = 1.2, 0.75

# English stopwords (the common NLTK list; s, t, d, ll, m, re, ve are what apostrophes leave)
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
now of off on once only or other our ours ourselves out over own same she should so some such than that the
their theirs them themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves s t d ll m re ve
""".split())


# --- text ---------------------------------------------------------------------------------
def tokens(text: str) -> list[str]:
    """Lowercase alphanumeric runs, stopwords removed."""
    return [t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in STOPWORDS]


def same_word(a: str, b: str) -> bool:
    """Crude stemming for the data checks (never for scoring): equal, or one starts with the
    other's first five letters (pump/pumps, replaced/replacement)."""
    return a == b or (len(a) >= 4 and len(b) >= 4 and (a.startswith(b[:5]) or b.startswith(a[:5])))


def shared_words(a: str, b: str) -> set[str]:
    tb = set(tokens(b))
    return {x for x in set(tokens(a)) if any(same_word(x, y) for y in tb)}


# --- baselines ------------------------------------------------------------------------------
class BM25:
    """Okapi BM25 over an inverted index of term -> (document indexes, term counts)."""

    def __init__(self, texts: list[str], k1: float = BM25_K1, b: float = BM25_B):
        self.k1, self.b = k1, b
        docs = [tokens(t) for t in texts]
        self.n = len(docs)
        self.length = np.array([len(d) for d in docs], dtype=np.float64)
        self.avg = float(self.length.mean()) if self.n else 0.0
        postings: dict[str, dict[int, int]] = {}
        for i, doc in enumerate(docs):
            for term in doc:
                postings.setdefault(term, {}).setdefault(i, 0)
                postings[term][i] += 1
        self.index = {t: (np.fromiter(p.keys(), dtype=np.int64), np.fromiter(p.values(), dtype=np.float64))
                      for t, p in postings.items()}

    def idf(self, df: int) -> float:
        return float(np.log(1.0 + (self.n - df + 0.5) / (df + 0.5)))

    def search(self, query: str, k: int) -> list[int]:
        """Indexes of the k best documents with a positive score, best first."""
        scores = np.zeros(self.n)
        for term in set(tokens(query)):
            if term not in self.index:
                continue
            docs, tf = self.index[term]
            norm = self.k1 * (1 - self.b + self.b * self.length[docs] / self.avg)
            scores[docs] += self.idf(len(docs)) * tf * (self.k1 + 1) / (tf + norm)
        return top_k(scores, k, positive=True)


def top_k(scores: np.ndarray, k: int, positive: bool = False) -> list[int]:
    """Indexes of the k highest scores, best first (ties by index)."""
    candidates = np.flatnonzero(scores > 0) if positive else np.arange(len(scores))
    if len(candidates) > k:
        part = np.argpartition(-scores[candidates], k - 1)[:k]
        candidates = candidates[part]
    return [int(i) for i in candidates[np.lexsort((candidates, -scores[candidates]))]]


def rrf(rankings: list[list[int]], k: int, constant: int = RRF_K) -> list[int]:
    """Reciprocal rank fusion: sum of 1 / (constant + rank) over the lists, best first."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking, start=1):
            fused[doc] = fused.get(doc, 0.0) + 1.0 / (constant + rank)
    return sorted(fused, key=lambda d: (-fused[d], d))[:k]


# --- metrics --------------------------------------------------------------------------------
def metrics(ranked: list[list[str]], questions: list[dict]) -> dict:
    """hit@1/5/10, recall@10, MRR@10 over the answerable questions; share_empty over the
    unanswerable ones (and over the answerable, where returning nothing is a miss)."""
    answerable = [(r, set(q["answers"])) for r, q in zip(ranked, questions) if q["answers"]]
    empty_none = [not r for r, q in zip(ranked, questions) if not q["answers"]]
    out: dict = {"answerable": len(answerable), "unanswerable": len(empty_none)}
    if answerable:
        def first_hit(r: list[str], gold: set[str]) -> int | None:
            return next((i for i, mid in enumerate(r[:10]) if mid in gold), None)
        firsts = [first_hit(r, g) for r, g in answerable]
        for n in (1, 5, 10):
            out[f"hit@{n}"] = round(float(np.mean([f is not None and f < n for f in firsts])), 4)
        out["recall@10"] = round(float(np.mean([len(set(r[:10]) & g) / len(g) for r, g in answerable])), 4)
        out["mrr@10"] = round(float(np.mean([0.0 if f is None else 1.0 / (f + 1) for f in firsts])), 4)
        out["share_empty_answerable"] = round(float(np.mean([not r for r, _ in answerable])), 4)
    out["share_empty_unanswerable"] = round(float(np.mean(empty_none)), 4) if empty_none else None
    return out


def answerability(tops: list[float], questions: list[dict], cost: float = ANSWERED_COST) -> dict | None:
    """How well one number per question (its best hit's relevance) tells answerable questions
    from unanswerable ones: the AUC (0.5 is chance), and the share of the unanswerable that a
    floor would empty if set where it empties `cost` of the answerable."""
    yes = np.array([t for t, q in zip(tops, questions) if q["answers"]])
    no = np.array([t for t, q in zip(tops, questions) if not q["answers"]])
    if not len(yes) or not len(no):
        return None
    auc = float(np.mean((yes[:, None] > no[None, :]) + 0.5 * (yes[:, None] == no[None, :])))
    floor = float(np.quantile(yes, cost))
    return {"auc": round(auc, 3), "floor": round(floor, 3), "answerable_emptied": round(float(np.mean(yes < floor)), 3),
            "unanswerable_emptied": round(float(np.mean(no < floor)), 3)}


def by_kind(ranked: list[list[str]], questions: list[dict]) -> dict:
    kinds = sorted({q["kind"] for q in questions}, key=lambda k: KINDS.index(k) if k in KINDS else 99)
    result = {}
    for kind in kinds:
        idx = [i for i, q in enumerate(questions) if q["kind"] == kind]
        m = metrics([ranked[i] for i in idx], [questions[i] for i in idx])
        keep = ("hit@1", "hit@10", "mrr@10") if kind != "none" else ("share_empty_unanswerable",)
        result[kind] = {"n": len(idx), **{key: m.get(key) for key in keep}}
    return result


def percentile_ms(seconds: list[float], q: float) -> float | None:
    return round(float(np.percentile(np.array(seconds) * 1e3, q)), 3) if seconds else None


# --- sets: load and check -------------------------------------------------------------------
def validate(data: dict, name: str) -> list[str]:
    """What is wrong with a set: ids, answers, kinds, and the promises each kind makes
    (a paraphrase shares no word with its answers, a keyword query is short, a question
    of kind none has no answer). Empty when the set is sound."""
    problems = []
    memories, questions = data.get("memories", []), data.get("questions", [])
    ids = [m.get("id") for m in memories]
    texts = {}
    for m in memories:
        if not m.get("id") or not str(m.get("text", "")).strip():
            problems.append(f"memory without id or text: {m}")
        elif m["text"] in texts:
            problems.append(f"memories {texts[m['text']]} and {m['id']} have the same text "
                            "(the store would merge them)")
        else:
            texts[m["text"]] = m["id"]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        problems.append(f"duplicate memory ids: {sorted(duplicates)}")
    by_id = {m.get("id"): m.get("text", "") for m in memories}
    qids = [q.get("id") for q in questions]
    if len(set(qids)) != len(qids):
        problems.append(f"duplicate question ids: {sorted({i for i in qids if qids.count(i) > 1})}")
    for q in questions:
        where = f"{name}:{q.get('id')}"
        kind, answers, text = q.get("kind"), q.get("answers"), str(q.get("q", ""))
        if not text.strip():
            problems.append(f"{where}: no question text")
        if kind not in KINDS:
            problems.append(f"{where}: kind {kind!r} is not one of {KINDS}")
        if not isinstance(answers, list):
            problems.append(f"{where}: answers is not a list")
            continue
        missing = [a for a in answers if a not in by_id]
        if missing:
            problems.append(f"{where}: answers name no memory: {missing}")
        if (kind == "none") != (not answers):
            problems.append(f"{where}: kind {kind} with {len(answers)} answers")
        if kind == "paraphrase":
            for a in answers:
                common = shared_words(text, by_id.get(a, ""))
                if common:
                    problems.append(f"{where}: paraphrase shares {sorted(common)} with {a}")
        if kind == "keyword" and len(tokens(text)) > 3:
            problems.append(f"{where}: a keyword query of {len(tokens(text))} words")
    return problems


def load_set(name: str, cache: Path) -> dict:
    """The set's memories and questions, checked; `public` is built on first use."""
    path = install_public(cache) if name == "public" else SETS[name]
    data = json.loads(path.read_text(encoding="utf-8"))
    problems = validate(data, name)
    if problems:
        raise SystemExit(f"{path}: {len(problems)} problems:\n  " + "\n  ".join(problems[:40]))
    return data


def describe(data: dict) -> dict:
    kinds = {k: sum(q["kind"] == k for q in data["questions"]) for k in KINDS}
    return {"memories": len(data["memories"]), "questions": len(data["questions"]),
            "kinds": {k: n for k, n in kinds.items() if n}}


# --- the public set: the Python FAQ from Debian's python3.11-doc ----------------------------
DOC_PACKAGES = ("python3.11-doc", "python3.12-doc", "python3.13-doc")
PUBLIC_NAME = "pyfaq.json"
WORDS_MIN, WORDS_MAX = 40, 120  # a passage: paragraphs joined up to about this many words
# mostly code or C tooling, and long: left out to keep the embedding within minutes on 2 cores
SKIPPED_SOURCES = {"howto/logging-cookbook", "howto/clinic", "howto/isolating-extensions", "howto/instrumentation",
                   "howto/cporting", "howto/index", "tutorial/index", "faq/index"}


def cache_dir(explicit: str | None) -> Path:
    root = explicit or os.environ.get("CMEM_TOOLS_CACHE") or str(Path.home() / ".cache" / "collective-memory")
    return Path(root) / "recall-data"


def install_public(cache: Path) -> Path:
    """The built public set, made from the .deb on first use: the .deb is fetched with
    `apt-get download` into `cache` (kept), its FAQ and tutorial sources read from it,
    and the set written beside it. Nothing happens when the set is already there."""
    built = cache / PUBLIC_NAME
    if built.exists():
        return built
    cache.mkdir(parents=True, exist_ok=True)
    deb = fetch_deb(cache)
    sources = read_deb_sources(deb)
    data = build_public(sources)
    data["source"] = {"package": deb.name, "sha256": hashlib.sha256(deb.read_bytes()).hexdigest(),
                      "license": "PSF-2.0 (Python Software Foundation License; see the package's copyright file)",
                      "what": "questions: the headings of the Python FAQ that end in '?'; memories: the passages of "
                              "the answers that follow them, and of the tutorial and the HOWTOs (distractors)"}
    problems = validate(data, "public")
    if problems:
        raise SystemExit("the built public set has problems:\n  " + "\n  ".join(problems[:40]))
    tmp = built.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    tmp.replace(built)
    print(f"[recall-data] built {built}: {describe(data)}", file=sys.stderr)
    return built


def fetch_deb(cache: Path) -> Path:
    """A python3.X-doc .deb in the cache, else the first that `apt-get download` finds."""
    held = sorted(cache.glob("python3.*-doc_*_all.deb"))
    if held:
        return held[0]
    if not shutil.which("apt-get"):
        raise SystemExit("the public set needs apt-get (Debian's python3.11-doc package), or a "
                         f"python3.X-doc .deb placed in {cache}")
    tried = []
    for package in DOC_PACKAGES:
        done = subprocess.run(["apt-get", "download", package], cwd=cache, capture_output=True, text=True)
        held = sorted(cache.glob(f"{package}_*_all.deb"))
        if done.returncode == 0 and held:
            return held[0]
        tried.append(f"{package}: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    raise SystemExit("apt-get download found no Python documentation package (run `apt-get update` first?):\n  "
                     + "\n  ".join(tried))


def read_deb_sources(deb: Path) -> dict[str, str]:
    """The reST sources of the FAQ, the tutorial and the HOWTOs inside a .deb (an ar archive holding
    data.tar.xz), by path under html/_sources/."""
    blob = deb.read_bytes()
    if not blob.startswith(b"!<arch>\n"):
        raise SystemExit(f"{deb} is not a .deb")
    pos, data = 8, None
    while pos + 60 <= len(blob):
        name, size = blob[pos:pos + 16].decode().strip().rstrip("/"), int(blob[pos + 48:pos + 58])
        if name.startswith("data.tar"):
            data = blob[pos + 60:pos + 60 + size]
            break
        pos += 60 + size + (size % 2)
    if data is None or not name.endswith(".xz"):
        raise SystemExit(f"{deb}: no data.tar.xz inside")
    wanted = re.compile(r".*/html/_sources/((?:faq|tutorial|howto)/[a-z0-9_-]+\.rst\.txt)$")
    sources = {}
    with tarfile.open(fileobj=io.BytesIO(lzma.decompress(data))) as tar:
        for member in tar:
            match = wanted.match(member.name)
            if match and member.isfile() and match.group(1).split(".")[0] not in SKIPPED_SOURCES:
                sources[match.group(1)] = tar.extractfile(member).read().decode("utf-8")
    if not any(p.startswith("faq/") for p in sources):
        raise SystemExit(f"{deb}: no FAQ sources inside")
    return sources


ADORNMENT = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")
SKIPPED_DIRECTIVES = {"index", "only", "contents", "highlight", "sectionauthor", "moduleauthor", "toctree",
                      "tabularcolumns", "testsetup", "testcleanup", "raw", "image", "figure"}


def rst_sections(text: str) -> list[tuple[str, list[str]]]:
    """(heading, body lines) for each section of a reST file, in order."""
    lines = text.splitlines()
    heads = [i for i in range(1, len(lines)) if ADORNMENT.match(lines[i]) and lines[i - 1].strip()
             and not ADORNMENT.match(lines[i - 1]) and len(lines[i].rstrip()) >= len(lines[i - 1].strip())]
    sections = []
    for n, i in enumerate(heads):
        end = heads[n + 1] - 1 if n + 1 < len(heads) else len(lines)
        if end > 0 and n + 1 < len(heads) and ADORNMENT.match(lines[end - 1]):
            end -= 1  # an overline belongs to the next title
        sections.append((lines[i - 1].strip(), lines[i + 1:end]))
    return sections


def inline(text: str) -> str:
    """reST inline markup to plain text."""
    text = re.sub(r":[a-z:]+:`~?!?([^`<]*?)\s*(?:<[^`>]*>)?`", r"\1", text)  # :role:`text <target>`
    text = re.sub(r"`([^`<]+?)\s*<[^`>]+>`__?", r"\1", text)  # `text <url>`_
    text = re.sub(r"``(.+?)``", r"\1", text)
    text = re.sub(r"`([^`]+)`_{0,2}", r"\1", text)
    text = text.replace("\\ ", "").replace("::", ":")
    return re.sub(r"\s+", " ", text).strip()


def paragraphs(body: list[str]) -> list[str]:
    """Plain paragraphs of a section body: directives that carry no prose dropped, code
    blocks kept as text."""
    out, current, skip_indent = [], [], None
    for line in body:
        indent = len(line) - len(line.lstrip())
        if skip_indent is not None:
            if not line.strip() or indent > skip_indent:
                continue
            skip_indent = None
        stripped = line.strip()
        directive = re.match(r"\.\.\s+([a-z-]+)::", stripped)
        if directive and directive.group(1) in SKIPPED_DIRECTIVES or re.match(r"\.\.\s+_[^:]*:", stripped) \
                or (stripped.startswith("..") and not directive):
            skip_indent = indent
            continue
        if directive:
            stripped = stripped[directive.end():].strip()  # note::, warning:: text on the same line
        if not stripped:
            if current:
                out.append(inline(" ".join(current)))
                current = []
            continue
        current.append(stripped)
    if current:
        out.append(inline(" ".join(current)))
    return [p for p in out if p and not ADORNMENT.match(p)]


def passages(paras: list[str]) -> list[str]:
    """Paragraphs joined until WORDS_MIN words, none past WORDS_MAX (a longer paragraph is cut)."""
    words_of = [p.split() for p in paras]
    pieces = [w[i:i + WORDS_MAX] for w in words_of for i in range(0, len(w), WORDS_MAX)]
    out, current = [], []
    for piece in pieces:
        if current and len(current) + len(piece) > WORDS_MAX:
            out.append(current)
            current = []
        current = current + piece
        if len(current) >= WORDS_MIN:
            out.append(current)
            current = []
    if current:
        if out and len(out[-1]) + len(current) <= WORDS_MAX + WORDS_MIN:
            out[-1] = out[-1] + current
        else:
            out.append(current)
    return [" ".join(p) for p in out]


def build_public(sources: dict[str, str]) -> dict:
    """FAQ questions with their answer passages as the right memories; the passages of the
    tutorial and the HOWTOs beside them."""
    memories, questions, seen_text, by_question, memories_by_id = [], [], set(), {}, {}

    def add(prefix: str, texts: list[str]) -> list[str]:
        ids = []
        for text in texts:
            if text in seen_text or len(text.split()) < 3:
                continue
            seen_text.add(text)
            ids.append(f"{prefix}-{len(memories)}")
            memories.append({"id": ids[-1], "text": text})
            memories_by_id[ids[-1]] = text
        return ids

    for path in sorted(sources):
        stem = path.split("/")[-1].split(".")[0]
        for heading, body in rst_sections(sources[path]):
            chunk = passages(paragraphs(body))
            if path.startswith("faq/") and heading.endswith("?"):
                ids = add(f"faq-{stem}", chunk)
                question = inline(heading)
                if sum(len(memories_by_id[i].split()) for i in ids) >= 8:  # not "See the next question."
                    by_question.setdefault(question, []).extend(ids)
            else:
                add(f"{path.split('/')[0]}-{stem}", chunk)
    for n, (question, ids) in enumerate(by_question.items()):
        questions.append({"id": f"pq{n:03d}", "q": question, "kind": "full", "answers": ids})
    return {"name": "public", "memories": memories, "questions": questions}


# --- one set, four methods ------------------------------------------------------------------
def pick(questions: list[dict], limit: int | None) -> list[dict]:
    """The first `limit` questions taken in turn from each kind (file order within a kind),
    so that a short run still sees every kind; all of them, in file order, without a limit."""
    if not limit or limit >= len(questions):
        return questions
    queues = {}
    for q in questions:
        queues.setdefault(q["kind"], []).append(q)
    chosen = []
    while len(chosen) < limit:
        for queue in queues.values():
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return chosen


def memory_text(memory: dict, speakers: bool) -> str:
    """What is stored of a set's memory: a conversation's turn with its speaker's name, as an
    agent that keeps a chat would write it (or its text alone)."""
    return f"{memory['speaker']}: {memory['text']}" if speakers and "speaker" in memory else memory["text"]


def run_set(name: str, data: dict, k: int, limit: int | None, work: Path, speakers: bool = True) -> dict:
    """Every question through recall, cosine, bm25 and rrf; their rankings (dataset ids) and
    per-query seconds, and how long the setup took."""
    questions = pick(data["questions"], limit)
    texts = [memory_text(m, speakers) for m in data["memories"]]
    ids = [m["id"] for m in data["memories"]]
    t0 = time.perf_counter()
    agent = Agent.init(f"quality-{name}", home=work / name)
    try:
        vectors = embed_sorted(agent.embedder, texts)
        embed_s = time.perf_counter() - t0
        stored = agent.store_many([MemoryInput(t, vector=v) for t, v in zip(texts, vectors)])
        to_dataset = {r.memory.id: i for r, i in zip(stored, ids)}
        assert len(to_dataset) == len(ids), "the store merged memories: their texts must differ"
        agent.index()
        setup_s = time.perf_counter() - t0
        bm25 = BM25(texts)
        ranked = {m: [] for m in METHODS}
        tops = {"recall": [], "cosine": []}  # each question's best relevance, best cosine
        seconds = {m: [] for m in METHODS}
        seconds["embed_query"] = []
        for q in questions:
            t = time.perf_counter()
            hits = agent.recall(q["q"], k=k)
            seconds["recall"].append(time.perf_counter() - t)
            ranked["recall"].append([to_dataset[h.memory.id] for h in hits])
            tops["recall"].append(max((h.relevance for h in hits), default=0.0))
            t = time.perf_counter()
            qv = agent.embedder.embed([q["q"]])[0]
            seconds["embed_query"].append(time.perf_counter() - t)
            t = time.perf_counter()
            sims = vectors @ qv
            cos = top_k(sims, max(k, RRF_DEPTH))
            tops["cosine"].append(float(sims.max()))
            seconds["cosine"].append(time.perf_counter() - t)
            t = time.perf_counter()
            lexical = bm25.search(q["q"], max(k, RRF_DEPTH))
            seconds["bm25"].append(time.perf_counter() - t)
            t = time.perf_counter()
            fused = rrf([cos[:RRF_DEPTH], lexical[:RRF_DEPTH]], k)
            seconds["rrf"].append(time.perf_counter() - t + seconds["cosine"][-1] + seconds["bm25"][-1])
            ranked["cosine"].append([ids[i] for i in cos[:k]])
            ranked["bm25"].append([ids[i] for i in lexical[:k]])
            ranked["rrf"].append([ids[i] for i in fused])
    finally:
        agent.close()
    return {"questions": questions, "ranked": ranked, "tops": tops, "seconds": seconds,
            "setup": {"embed_memories_s": round(embed_s, 2), "store_and_index_s": round(setup_s - embed_s, 2)},
            "model": agent.embedder_version}


def embed_sorted(embedder, texts: list[str]) -> np.ndarray:
    """The embedder's vectors for texts, embedded shortest first so that each batch pads
    little (the model pools over real tokens only: the vectors are the same)."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    vectors = np.empty((len(texts), embedder.dim), dtype=np.float32)
    vectors[order] = embedder.embed([texts[i] for i in order])
    return vectors


WHAT = {"recall": "agent.recall(question, k) on the embedded engine (the system under test)",
        "cosine": "numpy top-k by cosine over the same vectors",
        "bm25": f"Okapi BM25 k1={BM25_K1} b={BM25_B}, lowercase alphanumeric tokens, stopwords out, no stemming",
        "rrf": f"reciprocal rank fusion of cosine and bm25, constant {RRF_K}, {RRF_DEPTH} deep"}


def report(name: str, data: dict, run: dict, k: int) -> dict:
    """One JSON line per method; returns their metrics for the summary."""
    results = {m: metrics(run["ranked"][m], run["questions"]) for m in METHODS}
    headline = ("hit@1", "hit@10", "mrr@10", "share_empty_unanswerable")
    baseline = {m: {key: results[m].get(key) for key in headline} for m in ("cosine", "bm25", "rrf")}
    for method in METHODS:
        secs = run["seconds"][method]
        emit({"bench": "recall_quality", "measurement": "retrieval_quality", "set": name, "method": method,
              "what": WHAT[method], "k": k, "questions": len(run["questions"]), **results[method],
              "by_kind": by_kind(run["ranked"][method], run["questions"]),
              "latency_p50_ms": percentile_ms(secs, 50), "latency_p95_ms": percentile_ms(secs, 95),
              **({"embed_query_p50_ms": percentile_ms(run["seconds"]["embed_query"], 50)}
                 if method == "recall" else {}),
              "memories": len(data["memories"]), "model": run["model"], "setup": run["setup"],
              "baseline": baseline, "load_1m": load()})
    told = answerability(run["tops"]["recall"], run["questions"])
    if told is not None:
        emit({"bench": "recall_quality", "measurement": "answerability", "set": name,
              "what": "recall's best hit's own relevance as a sign that a question has an answer stored",
              **told, "baseline": {"what": "the best cosine, as the same sign",
                                   **answerability(run["tops"]["cosine"], run["questions"])},
              "load_1m": load()})
    return results


# --- output ---------------------------------------------------------------------------------------
def load() -> float:
    return round(os.getloadavg()[0], 2)


def emit(record: dict) -> None:
    record.setdefault("cpus", os.cpu_count())
    print(json.dumps(record), flush=True)


def table(rows: list[tuple[str, str, dict, float | None]]) -> None:
    cols = ("hit@1", "hit@5", "hit@10", "recall@10", "mrr@10", "share_empty_unanswerable", "share_empty_answerable")
    names = ("hit@1", "hit@5", "hit@10", "R@10", "MRR@10", "empty|none", "empty|ans")
    print(f"{'set':18} {'method':7} {'n':>4} " + " ".join(f"{c:>10}" for c in names) + f" {'p50 ms':>8}",
          file=sys.stderr)
    for name, method, m, p50 in rows:
        cells = " ".join(f"{'-' if m.get(c) is None else format(m[c], '.3f'):>10}" for c in cols)
        print(f"{name:18} {method:7} {m['answerable'] + m['unanswerable']:>4} {cells} {p50 or 0:>8.2f}",
              file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=[*SETS, "public", "all"], default="all",
                        help="which questions to score; all = dev, conversation and public (the blind sets only "
                             "when named alone)")
    parser.add_argument("--plain-turns", action="store_true",
                        help="store a conversation's turns without their speaker's name")
    parser.add_argument("--k", type=int, default=10, help="memories asked of each method per question (default 10)")
    parser.add_argument("--limit", type=int, help="score only N questions of each set, taken in turn from each kind")
    parser.add_argument("--table", action="store_true", help="also print a table to stderr")
    parser.add_argument("--json", action="store_true", default=True, help="JSON lines on stdout (the default)")
    parser.add_argument("--validate", action="store_true",
                        help="check every set's ids and promises (blind included), score nothing")
    parser.add_argument("--install", action="store_true", help="fetch and build the public set, score nothing")
    parser.add_argument("--cache", help="where the public set is kept (default: $CMEM_TOOLS_CACHE or "
                                        "~/.cache/collective-memory, then recall-data/)")
    args = parse_args(parser, argv, QUICK)
    cache = cache_dir(args.cache)
    if args.install:
        print(install_public(cache))
        return
    if args.validate:
        for name in (*SETS, "public"):
            data = load_set(name, cache)
            emit({"bench": "recall_quality", "measurement": "validate", "set": name, "ok": True, **describe(data),
                  "baseline": None})
        return
    names = ["dev", "conversation", "public"] if args.set == "all" else [args.set]
    started, summary, rows = time.perf_counter(), {}, []
    work = Path(tempfile.mkdtemp(prefix="cmem-quality-"))
    try:
        for name in names:
            data = load_set(name, cache)
            run = run_set(name, data, args.k, args.limit, work, speakers=not args.plain_turns)
            results = report(name, data, run, args.k)
            summary[name] = {m: {key: results[m].get(key) for key in ("hit@10", "mrr@10", "share_empty_unanswerable")}
                             for m in METHODS}
            rows += [(name, m, results[m], percentile_ms(run["seconds"][m], 50)) for m in METHODS]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    emit({"bench": "recall_quality", "measurement": "summary", "k": args.k, "sets": summary,
          "baseline": "cosine, bm25 and rrf: computed in this run over the same memories and vectors",
          "seconds": round(time.perf_counter() - started, 1), "load_1m": load()})
    if args.table:
        table(rows)


if __name__ == "__main__":
    main()
