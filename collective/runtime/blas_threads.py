"""numpy's OpenBLAS threads, told to sleep when they have no work instead of spinning.

When numpy loads, OpenBLAS starts a worker thread per core, and each spins for about a
tenth of a second waiting for work before it sleeps: a core's worth of CPU for a command
that multiplies no large matrix, taken from the command itself where other work shares
the machine (`cmem store` at load 1.7 on 2 cores: 0.30 s p50, 0.25 s with the short
spin). A spin of 2^4 cycles lets them sleep at once; a large product wakes them as before.
An OPENBLAS_THREAD_TIMEOUT already set wins. Imported by the CLI before anything loads numpy.
"""

import os

os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
