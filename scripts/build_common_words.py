#!/usr/bin/env python
"""Build the common words an event's topic may name (collective/model/common_words.txt).

Usage: scripts/build_common_words.py [--size N] [--dictionary FILE]

A topic travels on the bus beside the memory's id, so it must never carry a
name, a code or a rare word of the statement ("the vault passphrase is
falcon-ninety"). It may name only words of this fixed list:

- the whole words of the MiniLM tokenizer's vocabulary (the embedder's,
  collective/embed_data/tokenizer.json), in vocabulary order: WordPiece
  numbers its words by how often they occur in its corpus (Wikipedia and
  books), so the order is a frequency rank;
- kept only where a dictionary of ordinary words (Debian's `wamerican`,
  /usr/share/dict/american-english, which writes names capitalised) has
  them in lower case and not capitalised too: "pedro", "brisbane" and
  "olivia" rank high in Wikipedia but are names, not words, and "john",
  "mark" and "china" are names as often as words;
- neither stop words (model/words.py) nor shorter than three letters;
- the first N of them (default 5,000).

The same inputs give the same bytes.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOKENIZER = ROOT / "collective" / "embed_data" / "tokenizer.json"  # the packaged one, whatever CMEM_TOKENIZER says
OUT = ROOT / "collective" / "model" / "common_words.txt"
FIRST_WORD_ID = 1996  # WordPiece's ids below this are special tokens, characters and unused slots
HEADER = """\
# The common English words an event's topic may name; no others (model/words.py).
# Made by scripts/build_common_words.py: the first {size} whole words, in frequency
# order, of the MiniLM tokenizer's vocabulary (collective/embed_data/tokenizer.json,
# Apache-2.0) that Debian's wamerican dictionary writes in lower case and not
# capitalised (as it writes names), less stop words and words under three letters.
"""


def common_words(vocab: dict[str, int], dictionary: set[str], size: int) -> list[str]:
    from collective.model.words import STOPWORDS

    ranked = sorted((i, w) for w, i in vocab.items() if i >= FIRST_WORD_ID and re.fullmatch(r"[a-z]{3,}", w))
    return [w for _, w in ranked
            if w in dictionary and w.capitalize() not in dictionary and w not in STOPWORDS][:size]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--dictionary", type=Path, default=Path("/usr/share/dict/american-english"))
    args = parser.parse_args(argv)
    if not args.dictionary.exists():
        print(f"{args.dictionary} is missing: apt-get install wamerican", file=sys.stderr)
        return 1
    vocab = json.loads(TOKENIZER.read_text(encoding="utf-8"))["model"]["vocab"]
    dictionary = set(args.dictionary.read_text(encoding="utf-8").split())
    words = common_words(vocab, dictionary, args.size)
    OUT.write_text(HEADER.format(size=len(words)) + "\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
