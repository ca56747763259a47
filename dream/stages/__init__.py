"""The dream's stages, one module each: select, detect, strengthen, synchronise, prune,
transfer, wire, cluster, hallucinate. Each takes what it reads and returns what it decided;
the cycle (dream/cycle.py) writes the decisions on the dream branch."""
