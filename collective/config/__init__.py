"""Where agents live and how they are tuned: the home folder, cmem.toml and the environment.

One settings model: each settings class declares its keys (loader.setting) and one
loader builds it from cmem.toml, read once per Home (home.py). The core's classes are
in sections.py; dream/ and sync/ declare theirs beside their users. Every environment
variable read is in environment.py. Precedence, highest first: command-line option,
environment, cmem.toml, default. scripts/config_reference.py writes the configuration
reference (docs/reference/configuration.md) from all of them.
"""

from .environment import VARIABLES
from .home import (CONFIG_FILE, Home, dolt_binary_override, home_path, private_dir, private_file, read_config,
                   tokenizer_override)
from .loader import setting, settings_from
from .sections import Settings, TopLevel

__all__ = ["CONFIG_FILE", "Home", "Settings", "TopLevel", "VARIABLES",
           "dolt_binary_override", "home_path", "private_dir", "private_file", "read_config", "setting",
           "settings_from", "tokenizer_override"]
