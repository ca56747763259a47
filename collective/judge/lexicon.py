"""Word lists and tables for the built-in pairwise judge (`collective.judge`).

Everything here is plain data, written by hand for the domains the agents
work in (habitat and life support, power, rovers and drones, medicine,
geology, crew schedules, research, software operations, logistics). It is
deliberately small and readable: extend a table rather than adding special
cases to the judge.

Tables
------
UNITS            unit spelling -> (dimension, factor to SI, offset). A value
                 in SI is ``value * factor + offset`` (offset only for
                 temperatures, which are kept in kelvin).
NUMBER_WORDS     spelled-out numbers ("twelve" -> 12).
STATE_AXES       axis -> (words of the positive pole, words of the negative
                 pole). Two memories that put the same axis at opposite
                 poles contradict each other; negation flips a pole.
STATE_PHRASES    multi-word state expressions, joined to one token before the
                 axes are looked up ("shut down" -> "shut_down").
NEGATORS         words that negate what follows in their clause.
HEDGES           words and phrases that mark a claim as uncertain.
QUALIFIERS       words that restrict a claim (except, only, mostly...).
RETRACTION_*     words that withdraw an earlier memory.
ID_NOUNS         nouns that take an identifier ("rover 5", "module C").
MODIFIER_IDS     adjectives that pick out one of several like objects
                 ("east array", "backup bank", "inner hatch").
ATTRIBUTE_NOUNS  nouns naming a measured or described property of an object
                 (pressure, temperature, battery...): a change of attribute
                 noun keeps the object and changes the attribute.
PLACE_NOUNS      nouns that make a prepositional phrase a location.
ROLE_NOUNS       crew roles that can fill a duty the way a name does.
TITLES           words that introduce a person's name.
PERSONAL_CONDITIONS  what a person has or is (a cold, asleep, a weight): two
                 people with the same condition do not contradict each other.
NEGATING_PREFIXES    "un-", "ab-", "non-"...: a word not in STATE_AXES whose
                 remainder is takes the opposite pole ("abnormal").
SYNONYM_PHRASES  multi-word synonyms read as one word ("carbon dioxide" -> co2).
STOPWORDS, AUXILIARIES, VERBS, PRONOUNS, IRREGULAR_STEMS  the light grammar:
                 the subject of a memory ends at its first verb.
PARTICLE_STATES  particles after a copula at the end of a clause ("the relay
                 is down.", "the build is green.") read as states.
DETERMINERS, COPULAS, CLAUSE_BREAKS, SCOPE_STOPS, ...  the smaller word sets
                 the readers use to find clauses, scopes and phrases.
CANDIDATE_FLOOR, TOPIC_COSINE, ...  the cosine gates of the comparison.
"""

from __future__ import annotations

# ----------------------------------------------------------- thresholds ---

#: Cosine below which the rule judge always answers "independent". Callers
#: fetch ANN candidates down to this floor (loose paraphrases and "same
#: object, other attribute" pairs sit between it and the merge's 0.6).
CANDIDATE_FLOOR = 0.30

# Calibrated on the development set (tests/data/judge_dev.jsonl).
TOPIC_COSINE = 0.55  # same topic on cosine alone, without a shared object
PARAPHRASE_COSINE = 0.62  # same object, nothing shared asserted: paraphrase above, attribute below
SUBSTITUTION_COSINE = 0.80  # different subject words but a paraphrase nonetheless

# ---------------------------------------------------------------- units ---

_KPA = 1000.0
UNITS: dict[str, tuple[str, float, float]] = {}


def _unit(dim: str, factor: float, *names: str, offset: float = 0.0) -> None:
    for name in names:
        UNITS[name] = (dim, factor, offset)


# pressure (Pa)
_unit("pressure", _KPA, "kpa", "kilopascal", "kilopascals")
_unit("pressure", 1.0, "pa", "pascal", "pascals")
_unit("pressure", 100.0, "hpa", "mbar", "millibar", "millibars")
_unit("pressure", 1e5, "bar", "bars")
_unit("pressure", 1e6, "mpa")
_unit("pressure", 101325.0, "atm", "atmosphere", "atmospheres")
_unit("pressure", 6894.757, "psi", "psia", "psig")
_unit("pressure", 133.322, "mmhg", "torr")
# length (m)
_unit("length", 1.0, "m", "metre", "metres", "meter", "meters")
_unit("length", 1000.0, "km", "kilometre", "kilometres", "kilometer", "kilometers", "klick", "klicks")
_unit("length", 0.01, "cm", "centimetre", "centimetres", "centimeter", "centimeters")
_unit("length", 0.001, "mm", "millimetre", "millimetres", "millimeter", "millimeters")
_unit("length", 1e-6, "um", "µm", "micron", "microns")
_unit("length", 0.3048, "ft", "foot", "feet")
_unit("length", 0.0254, "inch", "inches")
_unit("length", 0.9144, "yd", "yard", "yards")
_unit("length", 1609.344, "mi", "mile", "miles")
# mass (kg)
_unit("mass", 1.0, "kg", "kgs", "kilo", "kilos", "kilogram", "kilograms")
_unit("mass", 0.001, "g", "gram", "grams", "gramme", "grammes")
_unit("mass", 1e-6, "mg", "milligram", "milligrams")
_unit("mass", 1e-9, "mcg", "µg", "microgram", "micrograms")
_unit("mass", 1000.0, "t", "tonne", "tonnes", "ton", "tons")
_unit("mass", 0.45359237, "lb", "lbs", "pound", "pounds")
_unit("mass", 0.028349523, "oz", "ounce", "ounces")
# volume (m3)
_unit("volume", 0.001, "l", "litre", "litres", "liter", "liters")
_unit("volume", 1e-6, "ml", "millilitre", "millilitres", "milliliter", "milliliters", "cc")
_unit("volume", 1.0, "m3", "m³", "cubic_metre", "cubic_metres", "cubic_meter", "cubic_meters")
_unit("volume", 0.003785411784, "gal", "gallon", "gallons")
# temperature (K, with offset)
_unit("temperature", 1.0, "°c", "c", "celsius", "degc", "degrees_c", "degrees_celsius", offset=273.15)
_unit("temperature", 5.0 / 9.0, "°f", "f", "fahrenheit", "degf", "degrees_f", "degrees_fahrenheit",
      offset=273.15 - 32.0 * 5.0 / 9.0)
_unit("temperature", 1.0, "k", "kelvin")
# power (W), energy (J)
_unit("power", 1.0, "w", "watt", "watts")
_unit("power", 1000.0, "kw", "kilowatt", "kilowatts")
_unit("power", 1e6, "mw", "megawatt", "megawatts")
_unit("energy", 3600.0, "wh")
_unit("energy", 3.6e6, "kwh")
_unit("energy", 3.6e9, "mwh")
_unit("energy", 1.0, "j", "joule", "joules")
_unit("energy", 1000.0, "kj")
_unit("energy", 1e6, "mj")
_unit("energy", 4184.0, "kcal", "calories", "calorie", "cal")
# electrical
_unit("voltage", 1.0, "v", "volt", "volts")
_unit("voltage", 1000.0, "kv")
_unit("current", 1.0, "amp", "amps", "ampere", "amperes")
_unit("current", 0.001, "ma", "milliamp", "milliamps")
_unit("charge", 3600.0, "ah")
_unit("charge", 3.6, "mah")
# time (s) as a duration
_unit("duration", 1.0, "s", "sec", "secs", "second", "seconds")
_unit("duration", 0.001, "ms", "millisecond", "milliseconds")
_unit("duration", 60.0, "min", "mins", "minute", "minutes")
_unit("duration", 3600.0, "h", "hr", "hrs", "hour", "hours")
_unit("duration", 86400.0, "day", "days")
_unit("duration", 88775.0, "sols")  # "sol 412" is a date; "ten sols" a duration
_unit("duration", 604800.0, "week", "weeks")
_unit("duration", 2629800.0, "month", "months")
_unit("duration", 31557600.0, "year", "years")
# speed (m/s)
_unit("speed", 1.0, "m/s", "mps")
_unit("speed", 1000.0 / 3600.0, "km/h", "kph", "kmh", "km/hr")
_unit("speed", 1609.344 / 3600.0, "mph")
_unit("speed", 0.514444, "knot", "knots", "kn")
# data (bytes, decimal multiples)
_unit("data", 1.0, "byte", "bytes")
_unit("data", 1e3, "kb", "kilobyte", "kilobytes")
_unit("data", 1e6, "mb", "megabyte", "megabytes")
_unit("data", 1e9, "gb", "gigabyte", "gigabytes")
_unit("data", 1e12, "tb", "terabyte", "terabytes")
_unit("data", 1024.0, "kib")
_unit("data", 1024.0**2, "mib")
_unit("data", 1024.0**3, "gib")
_unit("data", 1024.0**4, "tib")
# ratio, angle, rate, radiation
_unit("ratio", 0.01, "%", "percent", "per_cent", "pct")
_unit("ratio", 1e-6, "ppm")
_unit("ratio", 1e-9, "ppb")
_unit("angle", 1.0, "°", "degree", "degrees", "deg")
_unit("frequency", 1.0, "hz", "hertz")
_unit("frequency", 1000.0, "khz")
_unit("frequency", 1e6, "mhz")
_unit("frequency", 1e9, "ghz")
_unit("frequency", 1.0 / 60.0, "bpm", "rpm")
_unit("dose", 1.0, "sv", "sievert", "sieverts")
_unit("dose", 0.001, "msv", "millisievert", "millisieverts")
_unit("dose", 1e-6, "usv", "µsv", "microsievert", "microsieverts")
_unit("dose", 1.0, "gy", "gray")
_unit("dose", 0.001, "mgy")

# Units written with letters that are also ordinary words or identifiers;
# they count as units only right after a number.
AMBIGUOUS_UNITS = frozenset({"c", "f", "k", "t", "g", "l", "m", "s", "h", "v", "w", "j", "kn",
                             "min", "day", "days", "week", "weeks", "month", "months", "year", "years"})

# Data units that are written in capitals; "mb" in lower case is millibar.
DATA_CAPITALS = {"MB": "mb", "GB": "gb", "TB": "tb", "KB": "kb"}

# Spellings read as another unit of the table (multi-word ones after joining).
UNIT_ALIASES = {"cubic_metres": "m3", "cubic_metre": "m3", "cubic_meters": "m3",
                "cubic_meter": "m3", "degrees_c": "°c", "degrees_f": "°f",
                "degrees_celsius": "°c", "degrees_fahrenheit": "°f", "per_cent": "%",
                "beats_per_minute": "bpm", "celsius": "°c", "fahrenheit": "°f"}

TIME_UNIT_FOR_RATE = {  # "per minute", "/h", "a day"
    "s": 1.0, "sec": 1.0, "second": 1.0,
    "min": 60.0, "minute": 60.0,
    "h": 3600.0, "hr": 3600.0, "hour": 3600.0,
    "day": 86400.0, "sol": 88775.0, "week": 604800.0, "month": 2629800.0, "year": 31557600.0,
}

NUMBER_WORDS: dict[str, float] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12,
    "a hundred": 100, "a dozen": 12, "a thousand": 1000, "half": 0.5, "a half": 0.5,
    "a couple of": 2, "a pair of": 2, "both": 2, "single": 1, "a single": 1,
}
MULTIPLIERS = {"hundred": 100, "thousand": 1000, "million": 1e6}

APPROXIMATORS = frozenset({"about", "around", "approximately", "approx", "roughly", "nearly",
                           "almost", "~", "circa", "ca", "some", "close", "just"})
LOWER_BOUNDS = frozenset({"above", "over", "exceeding", "exceeds", "beyond"})  # value > x
LOWER_BOUND_PHRASES = ("more than", "greater than", "higher than", "at least", "no less than",
                       "steeper than", "longer than", "heavier than", "faster than", "in excess of")
UPPER_BOUNDS = frozenset({"below", "under", "within"})  # value < x
UPPER_BOUND_PHRASES = ("less than", "fewer than", "lower than", "at most", "no more than",
                       "up to", "shorter than", "lighter than", "slower than")

# ---------------------------------------------------------- times, days ---

WEEKDAYS = {
    "monday": "mon", "tuesday": "tue", "wednesday": "wed", "thursday": "thu", "friday": "fri",
    "saturday": "sat", "sunday": "sun",
}
# Short forms count only when capitalised ("Sat" is a weekday, "sat" a verb).
WEEKDAY_ABBREV = {
    "Mon": "mon", "Tue": "tue", "Tues": "tue", "Wed": "wed", "Thu": "thu", "Thur": "thu",
    "Thurs": "thu", "Fri": "fri", "Sat": "sat", "Sun": "sun",
}
MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}
RELATIVE_DAYS = {
    "today": 0, "tonight": 0, "this morning": 0, "this afternoon": 0, "this evening": 0,
    "tomorrow": 1, "tomorrow morning": 1, "tomorrow night": 1,
    "yesterday": -1, "last night": -1, "day after tomorrow": 2,
}
NAMED_TIMES = {"noon": 720, "midday": 720, "midnight": 0}
DAY_PARTS = {  # "3 in the afternoon"
    "morning": "am", "afternoon": "pm", "evening": "pm", "night": "pm",
}

# ------------------------------------------------------------- polarity ---

NEGATORS = frozenset({"not", "no", "never", "none", "nothing", "nobody", "neither", "nor",
                      "without", "cannot", "nowhere", "noone"})
# Phrases that negate what follows; joined before scanning.
NEGATOR_PHRASES = ("no one", "no longer", "failed to", "fails to", "fail to", "unable to",
                   "free of", "free from", "lack of", "absence of", "did not manage to")

HEDGES = frozenset({
    "might", "may", "could", "possibly", "possible", "probably", "probable", "likely",
    "perhaps", "maybe", "apparently", "seemingly", "seems", "seem", "seemed", "appears",
    "appear", "appeared", "suspected", "suspect", "suspects", "suspicion", "unconfirmed",
    "unverified", "preliminary", "tentative", "tentatively", "reportedly", "rumoured",
    "rumored", "presumably", "allegedly", "suggest", "suggests", "conceivably", "uncertain",
    "unclear", "plausibly", "potentially",
})
HEDGE_PHRASES = ("i think", "we think", "i believe", "we believe", "not sure", "not certain",
                 "not confirmed", "not yet confirmed", "to be confirmed", "needs confirming",
                 "needs confirmation", "pending confirmation", "looks like", "it looks",
                 "in question", "i guess", "i suspect", "we suspect", "hard to say",
                 "could be", "might be", "may be", "may have", "might have",
                 "could have", "is expected to be unclear")

QUALIFIERS = frozenset({
    "except", "excepting", "excluding", "but", "though", "although", "however", "unless",
    "only", "partly", "partially", "mostly", "mainly", "largely", "intermittently",
    "occasionally", "sometimes", "most", "some", "if", "provided", "limited", "restricted",
    "reduced", "barring", "save",
})
QUALIFIER_PHRASES = ("apart from", "other than", "except for", "with the exception of",
                     "as long as", "for now", "at times", "not all", "save for", "so long as",
                     "on condition", "only if", "only when", "but only", "in part",
                     "not fully", "not entirely", "not completely")
# Qualifiers that open a clause whose content restricts the main claim; the
# words after them are kept out of the clash checks.
CLAUSE_QUALIFIERS = frozenset({"except", "excepting", "excluding", "but", "though", "although",
                               "however", "unless", "if", "provided", "barring", "save", "when",
                               "once", "apart_from", "other_than", "except_for",
                               "with_the_exception_of", "as_long_as", "save_for", "so_long_as"})

RETRACTION_STRONG = ("retract", "retraction", "retracting", "disregard", "scratch that",
                     "false alarm", "correction", "withdrawn", "withdraw", "mixed it up",
                     "mixed up", "misreported", "typo", "please ignore", "ignore my",
                     "ignore the earlier", "ignore the previous", "ignore that", "ignore this",
                     "never happened", "false positive", "did not happen", "was a test",
                     "was just a test", "erratum", "retracted:", "was mislabelled",
                     "was mislabeled", "i was wrong", "we were wrong")
RETRACTION_WEAK = ("wrong", "incorrect", "mistaken", "mistake", "erroneous", "erroneously",
                   "spurious", "artefact", "artifact", "glitch", "bogus", "misread",
                   "mislabelled", "mislabeled", "after all", "turned out", "not actually",
                   "in error", "an error", "a error", "logging error", "sensor error",
                   "retracted", "invalid", "false")
# A weak retraction word counts only when the text is about a report.
REPORT_WORDS = frozenset({"report", "reported", "reports", "claim", "claimed", "note", "message",
                          "entry", "result", "results", "reading", "readings", "finding",
                          "alarm", "alert", "memory", "statement", "earlier", "previous",
                          "previously", "my", "our", "i", "we", "log", "logged", "observation"})

# ---------------------------------------------------------- state words ---

STATE_AXES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "condition": (
        ("fine", "ok", "okay", "nominal", "nominally", "normal", "normally", "healthy", "good",
         "working", "works", "work", "worked", "functional", "functioning", "operational",
         "safe", "sound", "intact", "undamaged", "unharmed", "fixed", "repaired", "resolved",
         "serviceable", "recovered", "thriving", "flawless", "flawlessly", "smoothly",
         "in_order", "all_clear", "no_problem"),
        ("broken", "break", "broke", "faulty", "fault", "faults", "failing", "failure",
         "failures", "damaged", "damage", "defective", "malfunction", "malfunctioning",
         "malfunctioned", "problem", "problems", "issue", "issues", "anomaly", "anomalies",
         "wrong", "unsafe", "danger", "dangerous", "hazard", "hazardous", "cracked",
         "dying", "dead", "died", "sick", "ill", "injured", "hurt", "jammed", "stuck",
         "clogged", "blocked", "unhealthy", "bad", "poor", "unserviceable", "inoperable",
         "inoperative", "wilted", "wilting", "withered", "torn", "ruptured", "burst",
         "fever", "feverish", "infection", "infected", "unwell", "bug", "bugs", "crash",
         "crashed", "crashing", "corrupted", "corrupt", "out_of_order", "degraded",
         "deteriorating", "worn", "flat_tyre", "breached", "breach", "punctured", "compromised",
         "unresponsive", "erroring", "outage", "not_working")),
    "leak": (
        ("leak", "leaks", "leaking", "leaked", "leaky", "escaping", "venting", "seeping",
         "hissing", "losing_pressure"),
        ("airtight", "leak-free", "leakproof", "holding_pressure", "holds_pressure",
         "held_pressure")),
    "open": (
        ("open", "opened", "opening", "ajar", "unsealed", "uncovered"),
        ("closed", "close", "closing", "shut", "sealed", "covered")),
    "lock": (("unlocked", "unlatched", "unbolted"), ("locked", "latched", "bolted")),
    "engagement": (("engaged", "applied", "set"), ("released", "disengaged", "let_off")),
    "power": (
        ("running", "active", "enabled", "online", "powered", "operating", "energised",
         "energized", "started", "switched_on", "turned_on", 
         "powered_up", "in_operation", "restarted", "booted", "live_power", "is_on", "are_on",
         "was_on", "were_on", "up_and_running", "back_up", "is_up", "are_up", "was_up",
         "producing", "generating", "consuming", "transmitting", "in_service"),
        ("stopped", "inactive", "disabled", "offline", "unpowered", "idle", "idled",
         "standby", "on_standby", "shut_down", "shutdown", "switched_off", "turned_off",
         "powered_down", "powered_off", "dormant",
         "deactivated", "de-energised", "tripped", "tripped_offline", "halted", "paused",
         "suspended", "off", "is_down", "are_down", "was_down", "went_down", "gone_down",
         "dismantled", "disassembled", "decommissioned", "deleted", "retired", "scrapped",
         "mothballed", "under_repair", "in_repair", "locked_out", "out_of_service", "taken_apart")),
    "deploy": (
        ("deployed", "deploy", "live", "released", "rolled_out", "extended", "unfurled",
         "merged", "shipped", "in_production"),
        ("rolled_back", "reverted", "undeployed", "stowed", "retracted_arm", "folded",
         "pulled_back", "unreleased", "backed_out")),
    "presence": (
        ("present", "found", "detected", "identified", "observed", "spotted", "confirmed_present",
         "traces", "signs"),
        ("absent", "missing", "undetected", "gone", "lost", "lose", "losing", "disappeared",
         "undetectable")),
    "pressurisation": (
        ("pressurised", "pressurized", "repressurised", "repressurized", "pressurising",
         "pressurizing"),
        ("depressurised", "depressurized", "unpressurised", "unpressurized", "vented",
         "evacuated", "at_vacuum", "depressurising", "depressurizing", "vacuum")),
    "fill": (
        ("full", "charged", "fully_charged", "full_charge", "topped_up", "filled", "refilled",
         "replenished", "stocked", "restocked", "brimming"),
        ("empty", "depleted", "drained", "exhausted", "flat", "run_out", "ran_out", "out_of",
         "used_up", "emptied", "discharged", "dry_tank")),
    "level": (
        ("high", "higher", "elevated", "excessive", "too_high", "raised"),
        ("low", "lower", "too_low", "lowered")),
    "trend": (
        ("rising", "rise", "rises", "rose", "risen", "increasing", "increase", "increased",
         "increases", "growing", "grew", "grown", "climbing", "climbed", "spiking", "spiked",
         "up_from", "gaining", "improving", "improved"),
        ("falling", "fall", "falls", "fell", "fallen", "decreasing", "decrease", "decreased",
         "decreases", "dropping", "dropped", "drop", "drops", "declining", "declined",
         "shrinking", "shrank", "sinking", "reducing", "reduce", "reduced_by", "down_from",
         "worsening", "worsened", "deteriorating", "deteriorated", "worse", "getting_worse")),
    "outcome": (
        ("succeeded", "succeed", "success", "successful", "successfully", "passed", "pass",
         "passes", "passing", "completed", "complete", "finished", "accomplished", "achieved",
         "done"),
        ("failed", "fail", "fails", "unsuccessful", "aborted", "abort", "incomplete",
         "unfinished", "flunked")),
    "permission": (
        ("approved", "approve", "authorised", "authorized", "accepted", "accept", "granted",
         "allowed", "permitted", "sanctioned", "signed_off", "green-lit", "greenlit",
         "cleared_for", "allows", "permits", "allow", "permit"),
        ("rejected", "reject", "denied", "refused", "declined", "vetoed", "revoked", "blocks",
         "blocking", "denies", "refuses",
         "forbidden", "prohibited", "off-limits", "banned", "disallowed", "barred",
         "not_permitted")),
    "schedule": (
        ("scheduled", "planned", "going_ahead", "goes_ahead", "go_ahead", "on_schedule",
         "on_time", "on_track", "booked", "confirmed"),
        ("cancelled", "canceled", "called_off", "scrapped", "scrubbed", "postponed",
         "delayed", "late", "behind_schedule", "deferred", "rescheduled", "overdue")),
    "test_result": (("positive",), ("negative",)),
    "stability": (
        ("stable", "steady", "constant", "stabilised", "stabilized", "holding_steady"),
        ("unstable", "fluctuating", "erratic", "oscillating", "unsteady", "wobbling",
         "drifting", "spiking_erratically")),
    "reliability": (
        ("reliable", "accurate", "valid", "correct", "calibrated", "trustworthy", "precise"),
        ("unreliable", "inaccurate", "invalid", "incorrect", "miscalibrated", "uncalibrated",
         "untrustworthy", "off_by")),
    "purity": (
        ("potable", "drinkable", "clean", "cleaned", "sterile", "uncontaminated", "pure",
         "safe_to_drink", "spotless"),
        ("contaminated", "polluted", "dirty", "dusty", "undrinkable", "non-potable", "toxic",
         "fouled", "soiled", "tainted", "caked", "grimy", "filthy", "coated_in_dust")),
    "moisture": (("wet", "damp", "moist", "soaked", "waterlogged", "humid", "muddy"),
                 ("dry", "arid", "parched", "dried")),
    "warmth": (("hot", "warm", "overheating", "overheated", "heated", "thawed", "thawing",
                "defrosted", "defrosting", "melted"),
               ("cold", "cool", "frozen", "freezing", "chilled", "cooled", "cooled_down")),
    "location": (
        ("out_on_survey", "on_survey", "on_eva", "outside", "en_route", "driving", "traversing",
         "airborne", "flying", "in_flight", "away", "roving", "surveying", "on_traverse",
         "out_on_eva", "underway", "departed", "left_base", "outdoors", "on_patrol"),
        ("inside", "indoors", "back_inside", "parked", "charging", "docked", "plugged_in",
         "at_base", "back_at_base", "landed", "grounded", "on_the_ground", "garaged", "home",
         "back_home", "returned", "back_in")),
    "wakefulness": (("awake", "woke", "woken", "alert"), ("asleep", "sleeping", "napping")),
    "isolation": (("in_isolation", "isolated", "quarantined", "in_quarantine"),
                  ("released_from_isolation", "out_of_isolation", "released_from_quarantine",
                   "out_of_quarantine")),
    "duty": (("on_duty", "back_on_duty", "fit_for_duty", "fit", "cleared_to_return",
              "returned_to_duty", "cleared_for_duty", "fit_for_eva"),
             ("off_duty", "unfit", "sick_leave", "on_sick_leave", "stood_down", "grounded_from",
              "relieved_of_duty", "signed_off_sick")),
    "sufficiency": (("enough", "sufficient", "adequate", "plenty", "ample", "surplus",
                     "overstaffed", "oversupplied", "overstocked"),
                    ("insufficient", "inadequate", "short", "shortage", "scarce", "lacking",
                     "deficit", "shortfall", "low_on", "running_low", "understaffed",
                     "short_staffed", "short-staffed", "understocked", "out_of_stock")),
    "availability": (("available", "free", "vacant", "unoccupied", "idle_slot"),
                     ("unavailable", "busy", "occupied", "booked_up", "in_use", "taken",
                      "reserved")),
    "attachment": (("installed", "mounted", "fitted", "attached", "connected", "plugged",
                    "linked", "reattached", "reconnected", "restored", "established"),
                   ("removed", "detached", "disconnected", "unplugged", "uninstalled",
                    "dismounted", "severed", "unlinked")),
    "obstruction": (("clear", "unobstructed", "passable", "cleared"),
                    ("obstructed", "cluttered", "impassable", "littered", "debris")),
    "ripeness": (("ripe", "ready_to_harvest", "mature"), ("unripe", "immature", "green_fruit")),
    "validity": (("in_date", "unexpired", "current_licence"), ("expired", "out_of_date", "lapsed")),
    "upright": (("upright", "standing", "erect", "vertical", "re-erected", "righted"),
                ("fallen_over", "fell_over", "toppled", "tipped_over", "knocked_over",
                 "blown_over", "collapsed", "capsized", "overturned", "flipped_over")),
}

# What a person has or is, rather than a duty they fill: two different people
# with the same condition are two facts, not a contradiction.
PERSONAL_CONDITIONS = frozenset({
    "cold", "flu", "fever", "headache", "migraine", "cough", "allergy", "rash", "nausea",
    "asleep", "awake", "sleeping", "tired", "fatigue", "fatigued", "exhausted", "sick", "ill",
    "unwell", "well", "injured", "injury", "sprain", "sprained", "fracture", "fractured",
    "concussion", "infection", "infected", "dehydrated", "weight", "weighs", "weigh", "height",
    "tall", "age", "old", "blood", "pressure", "pulse", "heart", "temperature",
    "vaccinated", "immune", "pregnant", "healthy", "fit", "hungry", "stressed", "anxious",
    "homesick", "bruise", "bruised", "cut", "burn", "burned", "blister", "symptoms",
    "symptom", "diagnosed", "medication", "recovering", "recovered", "toothache", "insomnia",
    "slept", "sleep", "birthday", "vegetarian", "vegan", "left-handed", "married",
})

# Phrases joined into one token before the state words are looked up.
STATE_PHRASES: tuple[str, ...] = (
    "shut down", "switched on", "switched off", "turned on", "turned off", "powered down",
    "powered off", "powered up", "rolled back", "rolled out", "backed out", "called off",
    "going ahead", "goes ahead", "go ahead", "on schedule", "on time", "on track",
    "behind schedule", "out on survey", "on survey", "out on eva", "on eva", "en route",
    "on traverse", "on patrol", "in flight", "back inside", "plugged in", "at base",
    "back at base", "on the ground", "back home", "back in", "left base",
    "fully charged", "full charge", "topped up", "run out", "ran out", "out of", "used up",
    "too high", "too low", "up from", "down from", "reduced by", "in isolation",
    "in quarantine", "released from isolation", "out of isolation", "released from quarantine",
    "out of quarantine", "on duty", "back on duty", "off duty", "fit for duty",
    "fit for eva", "cleared for duty", "cleared to return", "returned to duty", "sick leave",
    "on sick leave", "stood down", "relieved of duty", "signed off sick", "signed off",
    "cleared for", "in use", "booked up", "safe to drink", "holding pressure",
    "holds pressure", "held pressure", "losing pressure", "holding steady", "at vacuum",
    "on standby", "in operation", "in production", "no problem", "no problems",
    "all clear", "in order", "out of order", "ready to harvest", "in date", "out of date",
    "low on", "running low", "tripped offline", "fallen over", "fell over", "tipped over",
    "knocked over", "blown over", "flipped over", "cooled down", "not permitted", "off by",
    "is on", "are on", "was on", "were on", "up and running", "back up", "is up", "are up",
    "was up", "is down", "are down", "was down", "went down", "gone down", "getting worse",
    "let off", "short staffed", "out of stock", "not working", "in service", "under repair",
    "in repair", "locked out", "out of service", "taken apart",
)

# Prefixes that turn a state word into its opposite ("abnormal", "unhealthy",
# "nonfunctional"): a word not in the tables whose remainder is, takes the
# other pole.
NEGATING_PREFIXES = ("non-", "non", "un", "ab", "in", "im", "ir", "il", "dis", "de-", "mis")

# Words that look like states but are used as plain verbs of reporting or
# motion in these phrases; the first word of each pair is skipped when the
# second follows it ("failed to start" is a negation, not a failure state).
STATE_BLOCKERS = {"failed": "to", "fail": "to", "fails": "to", "open": "at", "opens": "at",
                  "closes": "at", "close": "to", "free": "of", "clear": "of", "lost": "track"}

# Implications between axes: a locked door is a closed door.
STATE_IMPLIES: dict[tuple[str, int], tuple[tuple[str, int], ...]] = {
    ("lock", -1): (("open", -1),),
    ("open", 1): (("lock", 1),),
    ("deploy", -1): (("power", -1),),  # stowed, folded: not running
}

# --------------------------------------------------------- object words ---

ID_NOUNS = frozenset({
    "rover", "module", "tank", "node", "airlock", "lock", "site", "release", "version",
    "heater", "rack", "bay", "zone", "sample", "tray", "cell", "drone", "locker", "dome",
    "bus", "unit", "pump", "array", "bank", "room", "suit", "hatch", "door", "valve", "line",
    "loop", "pad", "station", "sensor", "camera", "core", "build", "ticket", "issue", "job",
    "server", "cluster", "shelf", "bin", "cabinet", "crate", "pallet", "container", "canister",
    "battery", "generator", "panel", "string", "sector", "grid", "lane", "trench", "well",
    "borehole", "hole", "outcrop", "target", "waypoint", "marker", "beacon", "antenna", "mast",
    "relay", "fan", "filter", "scrubber", "bed", "greenhouse", "lab", "quarters", "cabin",
    "deck", "level", "floor", "block", "wing", "section", "compartment", "segment", "row",
    "port", "slot", "stack", "astronaut", "eva", "traverse", "flight", "mission", "phase",
    "stage", "test", "run", "batch", "lot", "case", "incident", "model", "plot", "cave",
    "habitat", "hab", "crawler", "buggy", "lander", "vehicle", "truck", "cart", "robot",
    "arm", "drill", "bit", "motor", "wheel", "circuit", "breaker", "fuse", "inverter",
    "charger", "electrolyser", "electrolyzer", "reactor", "kiln", "oven", "furnace", "still",
    "hopper", "bunker", "silo", "bottle", "cylinder", "pack", "kit", "box", "bag", "channel",
    "link", "feed", "node", "pod", "hangar", "garage", "shed", "tunnel", "corridor", "vent",
    "duct", "tap", "faucet", "bench", "desk", "terminal", "console", "display", "screen",
    "laptop", "tablet", "workstation", "patch", "firmware", "service", "instance", "vm",
    "container", "database", "db", "queue", "topic", "partition", "shard", "replica", "pr",
    "commit", "branch", "sprint", "milestone", "task", "item", "order", "shipment",
    "delivery", "consignment", "manifest", "landing", "plant", "crop", "tray", "bed",
    "specimen", "vial", "tube", "slide", "dish", "plate", "probe", "instrument",
    "spectrometer", "seismometer", "spacesuit", "helmet", "glove", "boot", "visor",
    "window", "porthole", "radiator", "condenser", "compressor", "cooler", "freezer",
    "fridge", "pipe", "hose", "cable", "antenna", "dish", "transmitter", "receiver", "radio",
    "zone", "area", "field", "region", "quadrant", "district", "ward", "bay", "berth", "dock",
    "gate", "entrance", "exit", "ladder", "ramp", "hatchway", "shelter", "outpost", "base",
    "camp", "depot", "cache", "stash", "beacon", "flag", "cairn",
})

MODIFIER_IDS: dict[str, str] = {
    "north": "north", "south": "south", "east": "east", "west": "west",
    "northern": "north", "southern": "south", "eastern": "east", "western": "west",
    "northeast": "northeast", "northwest": "northwest", "southeast": "southeast",
    "southwest": "southwest", "north-east": "northeast", "north-west": "northwest",
    "south-east": "southeast", "south-west": "southwest",
    "left": "left", "right": "right", "front": "front", "rear": "rear", "back": "rear",
    "upper": "upper", "lower": "lower", "top": "upper", "bottom": "lower",
    "inner": "inner", "outer": "outer", "inboard": "inner", "outboard": "outer",
    "main": "main", "primary": "main", "secondary": "backup", "backup": "backup",
    "spare": "backup", "auxiliary": "backup", "reserve": "backup", "standby_unit": "backup",
    "staging": "staging", "production": "production", "prod": "production",
    "dev": "development", "development": "development", "test_env": "test",
    "port": "port", "starboard": "starboard", "forward": "forward", "aft": "aft",
    "first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5",
    "old": "old", "new": "new", "older": "old", "newer": "new", "legacy": "old",
    "central": "central", "middle": "central",
}
ATTRIBUTE_NOUNS = frozenset({
    "pressure", "temperature", "temp", "humidity", "level", "levels", "charge", "battery",
    "voltage", "current", "output", "input", "efficiency", "range", "speed", "weight", "mass",
    "length", "height", "depth", "width", "size", "capacity", "volume", "flow", "rate",
    "status", "state", "condition", "health", "uptime", "latency", "memory", "cpu", "disk",
    "load", "usage", "use", "consumption", "draw", "reading", "readings", "count", "dose",
    "concentration", "ph", "salinity", "composition", "colour", "color", "age", "lighting",
    "lights", "noise", "vibration", "schedule", "location", "position", "heading",
    "odometer", "mileage", "cost", "price", "owner", "firmware", "software", "version",
    "error", "errors", "signal", "bandwidth", "throughput", "morale", "mood", "sleep",
    "appetite", "weight", "pulse", "heart", "blood", "oxygen", "o2", "co2", "nitrogen",
    "methane", "water", "air", "power", "energy", "fuel", "supply", "stock", "stocks",
    "inventory", "seal", "seals", "gasket", "insulation", "paint", "coating", "wheel",
    "wheels", "camera", "cameras", "parachute", "valve", "door", "filter", "intake",
    "tyre", "tire", "axle", "suspension", "brake", "brakes", "steering", "lid", "cap",
})

PLACE_NOUNS = frozenset({
    "module", "node", "airlock", "lock", "hab", "habitat", "base", "greenhouse", "galley",
    "kitchen", "medbay", "sickbay", "infirmary", "clinic", "lab", "laboratory", "garage",
    "workshop", "hangar", "shed", "annex", "storeroom", "store", "stores", "storage",
    "warehouse", "depot", "locker", "cabinet", "shelf", "rack", "bin", "freezer", "fridge",
    "room", "quarters", "bunk", "cabin", "corridor", "tunnel", "passage", "hallway", "deck",
    "bay", "dock", "pad", "zone", "site", "area", "field", "sector", "quadrant", "region",
    "ridge", "crater", "rim", "vent", "slope", "valley", "canyon", "mesa", "dune", "dunes",
    "plain", "plains", "highland", "highlands", "plateau", "hill", "hills", "mound",
    "outcrop", "basin", "channel", "delta", "cliff", "scarp", "cave", "lava", "tube",
    "floor", "wall", "cellar", "basement", "attic", "dome", "tent", "outpost", "station",
    "camp", "shelter", "mast", "tower", "roof", "door", "gate", "entrance", "exit",
    "control", "office", "gym", "toilet", "bathroom", "washroom", "shower", "laundry",
    "library", "lounge", "wardroom", "mess", "pantry", "cupboard", "drawer", "box", "crate",
    "bunker", "silo", "trench", "pit", "quarry", "mine", "flats", "lake", "lakebed",
    "shore", "coast", "edge", "summit", "peak", "foothills", "terrace", "gully", "ravine",
    "wash", "arroyo", "playa", "boulder", "rock", "landing", "runway", "apron", "yard",
    "compound", "perimeter", "fence", "cold", "server", "datacenter", "cluster", "region",
    "earth", "mars", "orbit", "moon", "surface", "underground", "subsurface", "hold",
})

ROLE_NOUNS: dict[str, str] = {
    "commander": "commander", "captain": "commander", "skipper": "commander",
    "medic": "medic", "doctor": "medic", "physician": "medic", "surgeon": "surgeon",
    "flight_surgeon": "flight surgeon", "nurse": "nurse", "medical_officer": "medic",
    "geologist": "geologist", "pilot": "pilot", "engineer": "engineer",
    "biologist": "biologist", "botanist": "botanist", "chemist": "chemist",
    "technician": "technician", "tech": "technician", "navigator": "navigator",
    "driver": "driver", "electrician": "electrician", "mechanic": "mechanic",
    "scientist": "scientist", "specialist": "specialist", "operator": "operator",
    "capcom": "capcom", "mission_control": "mission control", "ground_control": "ground control",
    "flight_director": "flight director", "quartermaster": "quartermaster",
    "cook": "cook", "chef": "cook", "sysadmin": "sysadmin", "administrator": "sysadmin",
    "on-call_engineer": "on-call engineer", "deputy": "deputy",
    "xo": "deputy", "first_officer": "deputy", "safety_officer": "safety officer",
}
ROLE_PHRASES = ("flight surgeon", "medical officer", "mission control", "ground control",
                "flight director", "first officer", "safety officer", "on-call engineer")

TITLES = frozenset({"dr", "doctor", "commander", "cmdr", "cdr", "captain", "capt", "engineer",
                    "specialist", "prof", "professor", "lt", "lieutenant", "major", "colonel",
                    "sgt", "sergeant", "chief", "mr", "mrs", "ms", "mx", "nurse", "pilot",
                    "officer", "technician", "tech", "medic"})

# Capitalised words that are not names when they start a sentence or appear
# mid-sentence (domain nouns, acronyms are handled separately).
NOT_NAMES = frozenset({
    "i", "the", "a", "an", "this", "that", "these", "those", "there", "here", "it", "we",
    "our", "my", "all", "no", "not", "none", "nobody", "nothing", "every", "each", "some",
    "any", "most", "both", "after", "before", "during", "today", "tomorrow", "yesterday",
    "tonight", "last", "next", "earth", "mars", "moon", "sun", "phobos", "deimos", "utc",
    "lmst", "houston", "retraction", "correction", "update", "note", "unconfirmed",
    "confirmed", "forecast", "warning", "alert", "status", "fyi", "ps", "re", "retracted",
    "withdrawn", "false", "please", "ignore", "disregard", "scratch", "maybe", "perhaps",
    "possibly", "probably", "likely", "apparently", "only", "also", "again", "still",
    "just", "then", "when", "while", "if", "once", "until", "since", "because", "so",
    "however", "although", "though", "but", "and", "or", "nor", "yes", "ok", "okay",
    "looks", "seems", "preliminary", "daily", "weekly", "nightly", "hourly", "monthly",
    "dust", "water", "power", "food", "ice", "frost", "methane", "oxygen", "olivine",
    "basalt", "gypsum", "hematite", "perchlorate", "pyroxene", "sulfate", "clay", "regolith",
    "soil", "sand", "rock", "crew", "everyone", "anyone", "someone", "nobody", "comms",
    "lights", "laundry", "sunrise", "sunset", "dawn", "dusk", "noon", "midnight", "midday",
    "cabin", "hab", "habitat", "output", "pressure", "temperature", "humidity", "supply",
    "cargo", "irrigation", "medical", "deploy", "deployment", "release", "version", "build",
    "backup", "spare", "main", "primary", "new", "old", "north", "south", "east", "west",
    "left", "right", "inner", "outer", "upper", "lower", "front", "rear", "staging",
    "production", "evening", "morning", "afternoon", "night", "fire", "solar", "wind",
    "storm", "weather", "visibility", "radiation", "heart", "blood", "bloodwork", "air",
    "greenhouse", "nutrient", "firing", "flight", "tonight's", "ground", "mission",
    "control", "mission_control", "ground_control", "psych", "sample", "samples", "ice",
    "nav", "software", "hardware", "firmware", "database", "server", "telemetry",
})

# Sentence-initial words are names only when they are not ordinary words;
# these endings almost always mark ordinary nouns, adjectives or verbs.
COMMON_SUFFIXES = ("tion", "sion", "ment", "ness", "ity", "ing", "ance", "ence", "ure", "ism",
                   "ship", "hood", "ology", "ics", "able", "ible", "ous", "ful", "less",
                   "ive", "ed", "ly", "er", "ers", "ry", "age", "ages", "als")

# --------------------------------------------------------- function words ---

STOPWORDS = frozenset({
    "the", "a", "an", "is", "are", "was", "were", "be", "been", "being", "am", "has", "have",
    "had", "having", "do", "does", "did", "doing", "will", "would", "shall", "should", "can",
    "could", "may", "might", "must", "to", "of", "in", "on", "at", "by", "for", "with", "from",
    "into", "onto", "over", "under", "about", "as", "and", "or", "but", "so", "than", "then",
    "that", "this", "these", "those", "there", "here", "it", "its", "they", "them", "their",
    "theirs", "we", "us", "our", "ours", "i", "my", "me", "mine", "he", "him", "his", "she",
    "her", "hers", "you", "your", "yours", "which", "who", "whom", "whose", "what", "when",
    "where", "while", "also", "very", "just", "now", "still", "again", "all", "any", "each",
    "every", "some", "such", "per", "'s", "s", "via", "too", "yet", "already", "currently",
    "both", "either", "one", "ones", "into", "out", "up", "down", "off", "through", "across",
    "after", "before", "during", "since", "until", "till", "because", "due", "get", "gets",
    "got", "getting", "let", "lets", "more", "less", "much", "many", "few", "own", "same",
    "other", "another", "anything", "something", "everything", "anyone", "someone",
    "everyone", "please", "really", "actually", "even", "ever", "quite", "rather", "how",
    "why", "whether", "if", "once", "only", "like", "near", "next", "beside", "behind",
    "inside", "outside", "within", "around", "among", "between", "toward", "towards",
    "upon", "against", "along", "beyond", "above", "below", "back", "again", "further",
    "yes", "ok", "okay", "currently", "right", "now", "today", "tonight", "tomorrow",
    "yesterday", "overnight", "recently", "lately", "soon", "later", "earlier", "last",
    "this", "next", "every", "local", "utc", "lmst", "am", "pm", "hours",
})

# Prepositions that open a location phrase in the predicate.
PLACE_PREPOSITIONS = frozenset({"in", "at", "inside", "into", "near", "by", "beside", "to",
                                "over", "outside", "behind", "under", "beneath", "within",
                                "next_to", "on", "onto", "across", "toward", "towards"})

# Words that end a subject: auxiliaries and common main verbs (base forms;
# -s/-ed/-ing forms are recognised by the judge).
AUXILIARIES = frozenset({"is", "are", "was", "were", "be", "been", "am", "has", "have", "had",
                         "will", "would", "shall", "should", "can", "could", "may", "might",
                         "must", "does", "do", "did", "cannot", "isn't", "aren't", "wasn't",
                         "weren't", "hasn't", "haven't", "hadn't", "won't", "can't",
                         "couldn't", "shouldn't", "doesn't", "didn't", "keeps", "kept",
                         "need", "needs", "needed", "seems", "seem", "appears", "appear",
                         "looks", "remains", "remain", "stays", "stay", "stayed", "became",
                         "becomes", "went", "goes", "got"})
VERBS = frozenset({
    "hold", "holds", "held", "store", "stores", "stored", "contain", "contains", "contained",
    "keep", "keeps", "kept", "show", "shows", "showed", "shown", "sit", "sits", "sat", "use",
    "uses", "used", "draw", "draws", "drew", "produce", "produces", "produced", "open",
    "opens", "opened", "close", "closes", "closed", "start", "starts", "started", "begin",
    "begins", "began", "end", "ends", "ended", "arrive", "arrives", "arrived", "leave",
    "leaves", "left", "last", "lasts", "lasted", "cover", "covers", "covered", "weigh",
    "weighs", "weighed", "measure", "measures", "measured", "make", "makes", "made", "take",
    "takes", "took", "run", "runs", "ran", "lead", "leads", "led", "drive", "drives",
    "drove", "driven", "reach", "reaches", "reached", "bring", "brings", "brought", "add",
    "adds", "added", "cycle", "cycles", "cycled", "fire", "fires", "fired", "launch",
    "launches", "launched", "land", "lands", "landed", "fly", "flies", "flew", "flown",
    "recover", "recovers", "recovered", "report", "reports", "reported", "find", "finds",
    "found", "detect", "detects", "detected", "rise", "rises", "rose", "fall", "falls",
    "fell", "drop", "drops", "dropped", "trip", "trips", "tripped", "seal", "seals", "sealed",
    "work", "works", "worked", "fail", "fails", "failed", "pass", "passes", "passed",
    "grow", "grows", "grew", "need", "needs", "needed", "require", "requires", "required",
    "house", "houses", "housed", "seat", "seats", "seated", "pull", "pulls", "pulled",
    "move", "moves", "moved", "deliver", "delivers", "delivered", "provide", "provides",
    "provided", "supply", "supplies", "supplied", "lose", "loses", "lost", "gain", "gains",
    "gained", "cover", "covers", "sign", "signs", "signed", "perform", "performs",
    "performed", "treat", "treats", "treated", "collect", "collects", "collected", "log",
    "logs", "logged", "fix", "fixes", "fixed", "replace", "replaces", "replaced", "clean",
    "cleans", "cleaned", "hiss", "hisses", "hissed", "weep", "weeps", "wept", "recover",
    "recovers", "complain", "complains", "complained", "identify", "identifies", "identified",
    "poses", "pose", "posed", "stands", "stand", "stood", "maxes", "max", "maxed", "get",
    "gets", "got", "go", "goes", "went", "happen", "happens", "happened", "occur", "occurs",
    "occurred", "peak", "peaks", "peaked", "finish", "finishes", "finished", "complete",
    "completes", "completed", "deploy", "deploys", "deployed", "restart", "restarts",
    "restarted", "survive", "survives", "survived", "crack", "cracks", "cracked", "tear",
    "tears", "tore", "torn", "break", "breaks", "broke", "broken", "rattle", "rattles",
    "rattled", "slept", "sleeps", "sleep", "test", "tests", "tested", "erupt", "erupts",
    "erupted", "suggest", "suggests", "suggested", "cause", "causes", "caused", "authorise",
    "authorises", "authorised", "authorize", "authorizes", "authorized", "approve",
    "approves", "approved", "reject", "rejects", "rejected", "accept", "accepts", "accepted",
    "handle", "handles", "handled", "climb", "climbs", "climbed", "travel", "travels",
    "travelled", "traveled", "mount", "mounts", "mounted", "sprain", "sprained", "sprains",
    "lock", "locks", "locked", "hum", "hums", "delivers", "operate", "operates", "operated",
})

# Pronouns and vague subjects that do not name an object.
PRONOUNS = frozenset({"we", "i", "it", "they", "he", "she", "you", "someone", "somebody",
                      "everyone", "everybody", "anyone", "one", "there", "this", "that"})

# Multi-word synonyms joined to one token before anything else is read.
SYNONYM_PHRASES = {
    "carbon dioxide": "co2", "carbon monoxide": "co", "space walk": "eva",
    "extravehicular activity": "eva", "medical bay": "medbay", "sick bay": "medbay",
    "solar panels": "solar array", "solar panel": "solar array",
    "living quarters": "quarters", "water recovery system": "water recycler",
    "water reclamation": "water recycler", "oxygen generator": "o2 generator",
    "life support": "life_support", "check up": "checkup", "check-up": "checkup",
}

# Irregular forms for the light stemmer.
IRREGULAR_STEMS = {
    "ran": "run", "running": "run", "went": "go", "gone": "go", "goes": "go", "broke": "break",
    "broken": "break", "drove": "drive", "driven": "drive", "rose": "rise", "risen": "rise",
    "fell": "fall", "fallen": "fall", "lost": "lose", "found": "find", "took": "take",
    "taken": "take", "made": "make", "held": "hold", "kept": "keep", "slept": "sleep",
    "began": "begin", "begun": "begin", "grew": "grow", "grown": "grow", "wore": "wear",
    "worn": "wear", "tore": "tear", "torn": "tear", "led": "lead", "left": "leave",
    "brought": "bring", "bought": "buy", "caught": "catch", "thought": "think",
    "told": "tell", "sent": "send", "spent": "spend", "built": "build", "flew": "fly",
    "flown": "fly", "drew": "draw", "drawn": "draw", "shown": "show", "seen": "see",
    "saw": "see", "done": "do", "did": "do", "had": "have", "has": "have", "was": "be",
    "were": "be", "been": "be", "is": "be", "are": "be", "am": "be", "stood": "stand",
    "sat": "sit", "met": "meet", "read": "read", "said": "say", "paid": "pay", "laid": "lay",
    "woke": "wake", "woken": "wake", "shut": "shut", "put": "put", "set": "set",
    "hurt": "hurt", "cut": "cut", "spun": "spin", "stuck": "stick", "struck": "strike",
    "wept": "weep", "dug": "dig", "fed": "feed", "fled": "flee", "froze": "freeze",
    "frozen": "freeze", "hid": "hide", "hidden": "hide", "rode": "ride", "ridden": "ride",
    "sang": "sing", "sung": "sing", "swam": "swim", "threw": "throw", "thrown": "throw",
    "wrote": "write", "written": "write", "chose": "choose", "chosen": "choose",
    "children": "child", "people": "person", "men": "man", "women": "woman",
    "data": "data", "media": "media", "criteria": "criterion", "analyses": "analysis",
    "spacewalk": "eva", "spacewalks": "eva", "evas": "eva", "oxygen": "o2",
    "carbon_dioxide": "co2", "comms": "comm", "communications": "comm",
    "communication": "comm", "habitat": "hab", "medbay": "medbay", "sickbay": "medbay",
    "db": "database", "databases": "database", "allergic": "allergy", "allergies": "allergy",
    "lab": "lab", "laboratory": "lab", "metres": "metre", "meters": "metre",
    "shortage": "short", "solo": "alone", "cams": "camera", "cam": "camera",
    "photos": "photo", "dropouts": "dropout",
}


# ------------------------------------------------------- reading words ---

# Other phrases joined into one token: multi-word units, "next to", "clear of".
JOINED_PHRASES = ("cubic metres", "cubic metre", "cubic meters", "cubic meter", "degrees c",
                  "degrees f", "degrees celsius", "degrees fahrenheit", "per cent",
                  "next to", "beats per minute", "clear of")

# Labels that open a memory ("Retraction:", "Update:") without being its subject.
LABEL_WORDS = frozenset({"retraction", "correction", "update", "note", "unconfirmed",
                         "confirmed", "fyi", "warning", "alert", "status", "retracted",
                         "withdrawn", "erratum", "log", "report", "reminder", "ps", "nb",
                         "info", "heads-up", "important"})
SENTENCE_ENDS = frozenset({".", "!", "?", ";", ":"})
CLAUSE_PUNCTUATION = frozenset({".", "!", "?", ";", ":", ",", "(", ")"})

# Words that end a negator's scope: a new clause starts.
CLAUSE_BREAKS = frozenset({"and", "but", "or", "because", "which", "so", "while", "although",
                           "though", "whereas", "however", "after", "before", "when", "since",
                           "until", "as", "if", "unless", "then", "nor"})
# Prepositions that end a negator's scope unless they follow it directly
# ("did not trigger during the test": the test is not negated).
SCOPE_STOPS = frozenset({"in", "at", "on", "during", "after", "before", "since", "until",
                         "by", "from", "for", "because", "while", "when", "near", "with",
                         "inside", "outside", "into", "over", "under", "behind", "beside",
                         "through", "via", "than", "to_the"})
DETERMINERS = frozenset({"the", "a", "an", "its", "their", "our", "his", "her", "my", "your",
                         "this", "that", "these", "those", "each", "every", "all", "both",
                         "some", "any"})
# Verbs after which a particle is a state ("the relay is down", "went live").
COPULAS = frozenset({"is", "are", "was", "were", "be", "been", "being", "stays", "stay",
                     "stayed", "remains", "remain", "remained", "went", "goes", "go", "came",
                     "comes", "turned", "switched", "left", "still", "now", "back", "seems",
                     "looks", "appears"})
PARTICLE_STATES = {"on": ("power", 1), "off": ("power", -1), "up": ("power", 1),
                   "down": ("power", -1), "live": ("deploy", 1), "green": ("outcome", 1),
                   "red": ("outcome", -1)}
# Words that may follow such a particle at the end of its clause.
PARTICLE_FOLLOWERS = frozenset({"again", "now", "since", "for", "at", "today", "tonight",
                                "yesterday", "and", "but", "already", "too", "as", "after",
                                "until", "this", "in", "on"})
# Auxiliaries proper: a word before one of them is a noun, not the main verb
# ("the deploy was rolled back").
TRUE_AUXILIARIES = frozenset({"is", "are", "was", "were", "has", "have", "had", "will", "would",
                              "can", "could", "should", "may", "might", "must", "does", "did",
                              "shall"})
IRREGULAR_PAST = frozenset({"broke", "fell", "went", "came", "took", "ran", "hit", "shut", "tore",
                            "froze", "blew", "began", "got", "was", "were", "had", "did", "left",
                            "lost", "found", "drove", "flew", "rose", "woke", "slept", "said"})
# Words after "once" that make it open a condition ("once it is sealed").
ONCE_CLAUSE_STARTS = frozenset({"it", "they", "he", "she", "we", "you", "the", "its", "their",
                                "our", "all"})
AM_PM = frozenset({"am", "pm"})
ORDINAL_SUFFIXES = frozenset({"st", "nd", "rd", "th"})


# --- the stance estimator (judge/stance.py) -------------------------------------
# It reads raw words of one sentence, contractions unexpanded, so its negators
# spell them out ("isn't"), where the reader above expands them first; its hedges
# are the narrower set it was measured with. Changing either changes the phase of
# every memory stored without an explicit stance.
STANCE_NEGATIONS = frozenset("""
not no never none nothing nobody nowhere neither nor cannot without lacks lacking
absent fails failed isn't aren't wasn't weren't doesn't don't didn't hasn't haven't
hadn't won't wouldn't can't couldn't shouldn't mustn't
""".split())

# Words that carry a negative judgement of their own: "no <word>" is positive.
STANCE_NEGATIVE_VALENCE = frozenset("""
unsafe dangerous danger hazard hazardous risk risky unsafe broken failure faulty fault
leak leaks leaking leaked damaged damage defective malfunction malfunctioning error errors
problem problems issue issues toxic contaminated contamination unstable degraded offline
down failing false wrong incorrect invalid unreliable insufficient unavailable
""".split())

STANCE_HEDGES = frozenset("""
might may maybe perhaps possibly probably likely unlikely could seems seem seemed appears
apparently uncertain unclear unconfirmed suspect suspected presumably allegedly roughly
""".split())
