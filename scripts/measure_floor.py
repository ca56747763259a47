"""The relevance floor of recall, measured: cosine of each question to the memories that are
about it and to those that are not, over the demo's and the tests' texts, with the default
embedder. Prints one JSON line; the floor belongs between `unrelated_max` and `related_min`.

Run: .venv/bin/python scripts/measure_floor.py
"""

from __future__ import annotations

import json

import collective  # noqa: F401  (first: sqlite3 speaks Dolt)
from collective.config import RECALL_FLOOR
from collective.embed import default_embedder

PUMP = ["The coolant pump in module C is safe to operate.", "The coolant pump in module C is not safe to operate.",
        "The coolant pump in module B is safe to operate", "Module B's coolant pump is safe to operate"]
ROVER = ["Rover 5 finished its traverse to the northern ridge.", "Rover 5 battery was replaced on Tuesday"]
LIGHTS = ["The greenhouse lights run twelve hours a day.", "The greenhouse lights do not run twelve hours a day.",
          "Greenhouse lights run for twelve hours each day, says the crop log."]
OTHER = ["Crew sleep shift starts at 22:00 station time.", "Solar array B produced 41 kWh yesterday.",
         "Sample 14 from the crater rim contains hematite.", "Dr. Okafor leads the bone density study.",
         "Dust storm expected over the landing site within three days.", "The greenhouse tomatoes are ripe",
         "Water recycling efficiency is 93 percent this week."]
QUESTIONS = {"is the pump safe?": PUMP, "Is the coolant pump in module B safe?": PUMP,
             "what did the rover do?": ROVER, "how long do the greenhouse lights run?": LIGHTS,
             "what is in sample 14?": ["Sample 14 from the crater rim contains hematite."],
             "when does the crew sleep?": ["Crew sleep shift starts at 22:00 station time."]}


def main() -> None:
    embedder = default_embedder()
    texts = sorted({*PUMP, *ROVER, *LIGHTS, *OTHER})
    vectors = dict(zip(texts, embedder.embed(texts)))
    related, unrelated = [], []
    for question, about in QUESTIONS.items():
        q = embedder.embed([question])[0]
        for text in texts:
            (related if text in about else unrelated).append(float(vectors[text] @ q))
    print(json.dumps({"related_min": round(min(related), 3), "unrelated_max": round(max(unrelated), 3),
                      "floor": RECALL_FLOOR, "pairs": len(related) + len(unrelated),
                      "separates": max(unrelated) < RECALL_FLOOR <= min(related)}))


if __name__ == "__main__":
    main()
