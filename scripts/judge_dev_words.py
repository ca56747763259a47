"""Word tables for scripts/make_judge_dev.py: objects, states, quantities, events, people.

Each table lists surface variants (synonyms, spellings, abbreviations) so that
two renderings of one fact differ in wording, order and format.
"""

# kind -> (nouns (synonyms), identifier formats, domain, states that apply)
EQUIPMENT = {
    "pump": (["pump", "feed pump", "transfer pump"], ["P-1{0:02d}", "{0}", "P{0}"], "plant", ["run", "work", "power"]),
    "valve": (["valve", "isolation valve"], ["V-{0}", "R{0}-1", "{0}"], "plant", ["open", "lock"]),
    "generator": (["generator", "genset"], ["G{0}", "{0}"], "plant", ["run", "work", "power"]),
    "truck": (["truck", "lorry", "HGV"], ["{0}", "T-{0}"], "logistics", ["work", "load"]),
    "server": (["server", "host", "machine"], ["web-0{0}", "app-{0}", "db-0{0}"], "ops", ["online", "work", "power"]),
    "service": (["service", "API", "endpoint"], ["{0}"], "ops", ["online", "enable", "work"]),
    "drone": (["drone", "UAV", "quadcopter"], ["{0}", "D{0}"], "field", ["work", "charge"]),
    "freezer": (["freezer", "cold store", "deep freezer"], ["F{0}", "{0}"], "medicine", ["work", "power", "seal"]),
    "forklift": (["forklift", "fork truck"], ["{0}", "FL-{0}"], "logistics", ["work", "charge"]),
    "sensor": (["sensor", "probe"], ["S{0}", "{0}"], "field", ["online", "work"]),
    "boiler": (["boiler"], ["{0}", "B-{0}"], "plant", ["run", "work"]),
    "compressor": (["compressor", "air compressor"], ["C-{0}", "{0}"], "plant", ["run", "work"]),
    "van": (["van", "delivery van"], ["{0}"], "logistics", ["work", "load", "lock"]),
    "ventilator": (["ventilator", "vent machine"], ["{0}"], "medicine", ["work", "power"]),
    "camera": (["camera trap", "trail camera"], ["{0}", "CT-{0}"], "field", ["work", "online", "charge"]),
    "gauge": (["river gauge", "level gauge", "stream gauge"], ["{0}"], "field", ["work", "online"]),
    "door": (["door", "fire door", "dock door"], ["{0}", "D-{0}"], "logistics", ["open", "lock"]),
    "database": (["database", "DB"], ["{0}"], "ops", ["online", "lock", "enable"]),
    "heater": (["heater", "space heater"], ["H{0}", "{0}"], "field", ["power", "work"]),
    "crane": (["crane", "gantry crane"], ["{0}"], "logistics", ["work", "run"]),
    "incubator": (["incubator"], ["{0}", "I-{0}"], "medicine", ["work", "power", "seal"]),
    "router": (["router", "core switch"], ["R{0}", "{0}"], "ops", ["online", "power"]),
}

# axis -> (positive words, negative words); each list holds synonyms
STATES = {
    "run": (["running", "in operation", "operating"], ["stopped", "shut down", "idle"]),
    "work": (["working", "operational", "in working order", "functioning normally"], ["broken", "out of order", "faulty", "broken down"]),
    "power": (["on", "switched on", "powered up"], ["off", "switched off", "powered down"]),
    "online": (["online", "up", "reachable"], ["offline", "down", "unreachable"]),
    "open": (["open", "opened", "wide open"], ["closed", "shut"]),
    "lock": (["locked", "secured"], ["unlocked", "unsecured"]),
    "load": (["loaded", "full"], ["empty", "unloaded"]),
    "charge": (["charged", "fully charged"], ["flat", "drained", "out of charge"]),
    "enable": (["enabled", "active", "switched on"], ["disabled", "inactive", "switched off"]),
    "seal": (["sealed", "airtight"], ["leaking", "not sealing"]),
}
# axes whose two poles are all there is: "not closed" means open
BINARY = {"open", "lock", "power", "online", "enable", "work"}

# quantity kind -> (attribute phrases, [(unit, factor to base)], plausible base range, applies to)
QUANTITIES = {
    "pressure": (["pressure", "outlet pressure", "line pressure"], [("kPa", 1.0), ("bar", 100.0), ("psi", 6.894757)], (150, 900), ["pump", "compressor", "boiler", "valve"]),
    "temperature": (["temperature", "temp"], [("°C", None), ("°F", None)], (-30, 90), ["freezer", "boiler", "sensor", "incubator", "heater", "server"]),
    "battery": (["battery", "charge level", "battery level"], [("%", 1.0), ("percent", 1.0)], (5, 100), ["drone", "forklift", "camera", "sensor", "van"]),
    "load": (["load", "payload", "cargo weight"], [("kg", 1.0), ("t", 1000.0), ("lb", 0.45359237)], (400, 9000), ["truck", "van", "crane", "forklift"]),
    "speed": (["speed", "top speed", "cruising speed"], [("km/h", 1.0), ("m/s", 3.6), ("mph", 1.609344)], (18, 110), ["truck", "van", "drone"]),
    "flow": (["flow rate", "flow", "throughput"], [("L/min", 1.0), ("L/s", 60.0), ("litres per hour", 1 / 60)], (30, 600), ["pump", "compressor", "gauge"]),
    "memory": (["memory use", "memory usage", "RAM use"], [("GB", 1.0), ("MB", 0.001)], (2, 64), ["server", "service", "database"]),
    "latency": (["latency", "response time", "p99 latency"], [("ms", 1.0), ("s", 1000.0)], (200, 4000), ["service", "database", "router"]),
    "level": (["water level", "level", "stage"], [("m", 1.0), ("cm", 0.01), ("ft", 0.3048)], (1, 6), ["gauge"]),
}
OTHER_FACTS = {  # kind -> facts of other attributes, for "same object, other attribute"
    "plant": ["was serviced in {month}", "has a new gasket", "is painted red", "was made in {year}", "has a cracked housing"],
    "logistics": ["has a new driver", "was serviced in {month}", "has a dented bumper", "needs new tyres", "was bought in {year}"],
    "ops": ["runs Ubuntu 22.04", "was patched in {month}", "is owned by the platform team", "has 16 cores", "is on the old kernel"],
    "field": ["has a new mount", "was installed in {year}", "has a scratched lens", "runs on solar power", "was moved in {month}"],
    "medicine": ["was serviced in {month}", "is due for inspection", "has a new door seal", "was bought in {year}", "is under warranty"],
}

# actions done to an object: (past active, past participle, negated-base)
ACTIONS = [
    (["inspected", "checked", "looked over"], ["inspected", "checked", "looked over"], ["inspect", "check"]),
    (["repaired", "fixed", "mended"], ["repaired", "fixed", "mended"], ["repair", "fix"]),
    (["cleaned", "washed down"], ["cleaned", "washed down"], ["clean"]),
    (["calibrated", "recalibrated"], ["calibrated", "recalibrated"], ["calibrate"]),
    (["restarted", "rebooted"], ["restarted", "rebooted"], ["restart", "reboot"]),
    (["replaced", "swapped out"], ["replaced", "swapped out"], ["replace"]),
    (["serviced", "maintained"], ["serviced", "maintained"], ["service"]),
    (["tested", "load-tested"], ["tested", "load-tested"], ["test"]),
]

# events: (noun phrases (synonyms), start verbs, domain)
EVENTS = {
    "briefing": (["the safety briefing", "the safety brief"], ["starts", "begins", "is"], "scheduling"),
    "standup": (["the team standup", "the daily standup", "the morning huddle"], ["starts", "is", "kicks off"], "scheduling"),
    "ward_round": (["the ward round", "rounds on ward 4"], ["starts", "begins", "is"], "medicine"),
    "supplier_call": (["the call with the supplier", "the supplier call"], ["is", "starts"], "scheduling"),
    "ferry": (["the ferry to the island", "the island ferry"], ["leaves", "departs", "sails"], "logistics"),
    "pickup": (["the courier pickup", "the parcel collection"], ["is", "happens", "is booked"], "logistics"),
    "backup_job": (["the nightly backup", "the backup job"], ["runs", "starts", "kicks off"], "ops"),
    "deploy": (["the deploy window", "the release window"], ["opens", "starts", "begins"], "ops"),
    "sampling": (["the water sampling run", "the sampling round"], ["starts", "begins", "is"], "field"),
    "bird_count": (["the bird count", "the dawn survey"], ["starts", "begins"], "field"),
    "vaccination": (["the vaccination clinic", "the flu jab clinic"], ["opens", "starts", "is"], "medicine"),
    "fire_drill": (["the fire drill", "the evacuation drill"], ["is", "takes place", "happens"], "scheduling"),
    "interview": (["the interview", "the candidate interview"], ["is", "starts", "begins"], "scheduling"),
    "training": (["the first-aid training", "the first-aid course"], ["starts", "runs", "is"], "scheduling"),
    "handover": (["the shift handover", "the handover"], ["is", "happens", "takes place"], "medicine"),
    "inspection": (["the site inspection", "the safety inspection"], ["is", "takes place", "starts"], "logistics"),
}
# places for events and stored items, grouped so that a clash stays in one kind
EVENT_PLACES = ["room 204", "room 118", "the main hall", "the canteen", "meeting room 3", "the library", "the boardroom", "the north office", "the training centre", "the lobby"]
STORE_PLACES = ["warehouse B", "warehouse D", "the basement store", "bay 6", "the loading dock", "the pharmacy", "the back office", "the cold room", "cabinet 4", "the garage"]
STORED_ITEMS = [
    ("the spare filters", "logistics"), ("the first-aid kits", "medicine"), ("the spare fuses", "plant"),
    ("the sample bottles", "field"), ("the backup drives", "ops"), ("the vaccine stock", "medicine"),
    ("the pallet wrap", "logistics"), ("the rain gauges", "field"), ("the spare laptops", "ops"),
    ("the oxygen cylinders", "medicine"), ("the tow straps", "logistics"), ("the soil augers", "field"),
]

FIRST = ["Priya", "Tom", "Lena", "Marco", "Aisha", "Jonas", "Fatima", "Carlos", "Ravi", "Sofia", "Kenji", "Amara",
         "Olu", "Greta", "Mateo", "Hana", "Ivan", "Nadia", "Pedro", "Yusuf", "Elif", "Liam", "Mei", "Tariq"]
LAST = ["Okafor", "Lindqvist", "Novak", "Huang", "Ferreira", "Kowalski", "Bauer", "Mbeki", "Haddad", "Lopez",
        "Rossi", "Chen", "Mensah", "Diaz", "Park", "Ito", "Grant", "Keane", "Moreau", "Osei", "Adeyemi", "Sato"]
TITLES = ["Dr.", "Nurse", "Mr.", "Ms.", "Prof."]
DUTIES = [("the on-call nurse", "medicine"), ("the duty manager", "logistics"), ("the incident commander", "ops"),
          ("the shift lead", "logistics"), ("the attending physician", "medicine"), ("the field lead", "field"),
          ("the release manager", "ops"), ("the site supervisor", "plant"), ("the note taker", "scheduling")]
LEAD_VERBS = [("leads", "is led by"), ("runs", "is run by"), ("chairs", "is chaired by"), ("hosts", "is hosted by")]

WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
HEDGES = ["may be", "might be", "could be", "is probably", "is possibly", "seems to be", "appears to be", "is likely",
          "is reportedly"]
HEDGE_PREFIXES = ["I think", "It looks like", "We suspect", "Not confirmed, but", "Possibly"]
RETRACTIONS = ["Disregard the earlier note that {fact}.", "Correction: ignore my message saying {fact}.",
               "Retracting my report that {fact}; it was a mistake.", "Scratch that: it is not true that {fact}.",
               "The earlier log saying {fact} was wrong.", "Please ignore what I said about {fact}, it was an error."]
ELABORATIONS = [", according to the night log", " after the morning check", ", as the supervisor confirmed",
                " with parts from the depot", ", which took about an hour", " before the shift change",
                " during the scheduled maintenance window", ", and the log was updated"]
REPORTERS = ["the night crew", "the supervisor", "Dispatch", "the on-call engineer", "the field team", "the charge nurse"]
