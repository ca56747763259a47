"""Three agents exchanging text beyond plain English: emoji, Chinese, Cyrillic, Arabic, a German
pair, a 4,000-character line, tabs and newlines, units. Every pull merges, every text is held by
every agent, and a denial written in a script the judge cannot read is not absorbed into what it
denies: both are recalled everywhere."""

from __future__ import annotations

import pytest

from collective.model import content_hash

pytestmark = pytest.mark.usefixtures("engine")

CAN = "水泵 P-101 可以安全运行。"      # pump P-101 can operate safely
CANNOT = "水泵 P-101 不可以安全运行。"  # ... cannot
TEXTS = {
    "earth-1": [CAN, "🚀 Launch window opens at 09:00 UTC 🚀", "Der Tank ist leer.", "Насос P-102 работает.",
                "Status:\tOK\nPower:\t98%"],
    "earth-2": [CANNOT, "🚀 Launch window opens at 10:00 UTC 🚀", "Der Tank ist voll.", "Насос P-102 не работает.",
                "مضخة التبريد آمنة للتشغيل"],
    "mars-1": ["Launch window opens at 09:00 UTC.", "🙂", "x" * 4000, "It is 5°C, -3 °F, 3/4 full and 50% done."],
}


def test_texts_in_other_scripts_travel_and_no_denial_is_absorbed(trio):
    for name, agent in trio.items():
        for text in TEXTS[name]:
            agent.store(text)
        agent.push()
    for _ in range(2):
        for agent in trio.values():
            report = agent.pull()
            assert {str(p["status"]) for p in report["peers"]} <= {"merged", "unchanged"}, report["refused"]
            agent.push()
    for name, agent in trio.items():
        missing = [t[:30] for texts in TEXTS.values() for t in texts
                   if not agent.tables.memories.ids_by_hash(content_hash(t))]
        assert not missing, f"{name} lacks {missing}"
        recalled = {h.memory.content for h in agent.recall("水泵 P-101", k=5)}
        assert {CAN, CANNOT} <= recalled, f"{name} recalls only {recalled & {CAN, CANNOT}}"
