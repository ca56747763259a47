"""An error's line in a tool's words. The services word their errors for the command line
(`see cmem quarantine list`, `--as-of`), and the CLI prints them as they are; a tool's
caller cannot run a command, so here each command becomes the tool that does the same,
an option the tool's argument, and what no tool does the operator's part."""

from __future__ import annotations

import re

# A command a line may name -> the tool that does the same (the longest that fits wins).
TOOLS = {
    "cmem quarantine list": "memory_disputes",
    "cmem quarantine show": "memory_dispute",
    "cmem quarantine resolve": "memory_resolve",
    "cmem quarantine reopen": "memory_reopen",
    "cmem promote": "memory_promote",
    "cmem endorse": "memory_endorse",
    "cmem push": "memory_push",
    "cmem pull": "memory_pull",
    "cmem status": "memory_status",
    "cmem recall": "memory_recall",
    "cmem dream": "memory_dream",
    "cmem sync": "memory_sync",
    "cmem key rotate": "memory_rotate_key",
    "cmem agents accept-key or reject-key": "memory_decide_key",
    "cmem promotions approve": "memory_decide_promotion",
}
# Who is offered a tool the default server leaves out (server.py), said beside its name.
ROLES = {"memory_dream": "an operator", "memory_sync": "an operator", "memory_rotate_key": "an operator",
         "memory_resolve": "a reviewer", "memory_reopen": "a reviewer", "memory_decide_key": "a reviewer",
         "memory_decide_promotion": "a reviewer"}
# Whole phrases that read wrong with a command taken out, said otherwise.
PHRASES = {"as `cmem reviewer init` prints it": "as a reviewer's key is written"}
# The verb before a command, as it reads before a tool, and before a command no tool matches.
VERBS = {"run": ("call", "ask its operator"), "see": ("see", "ask its operator"),
         "with": ("with", "through its operator")}

# `cmem ...` in backquotes, or bare: lower-case words, then options and their placeholders
_COMMAND = re.compile(r"(?:\b(run|see|with) )?(`cmem [^`]*`|\bcmem(?: [a-z][a-z-]*)+(?: (?:--?[a-z][\w-]*|[A-Z][A-Z_]*))*)")
_OPTION = re.compile(r"(?<![\w-])--([a-z][a-z-]*)")


def in_tool_words(line: str, offered: frozenset[str] | set[str] = frozenset()) -> str:
    """`line` naming tools where it named commands, and no command-line option: an option
    that is a tool's argument by its name (as_of), any other as the operator's setting.
    A tool not in `offered` is said with who gets it ("memory_dream, an operator's tool")."""
    for phrase, said in PHRASES.items():
        line = line.replace(phrase, said)
    line = _COMMAND.sub(lambda m: _command(m[1], m[2].strip("`"), offered), line)
    return _OPTION.sub(lambda m: f"the operator's {m[1]} setting", line)


def _command(verb: str | None, command: str, offered: frozenset[str] | set[str]) -> str:
    words = command.split(" ")
    for end in range(len(words), 1, -1):
        tool = TOOLS.get(" ".join(words[:end]))
        if tool is not None:
            break
    else:
        return VERBS[verb][1] if verb else "on the operator's command line"
    said = tool if tool in offered or tool not in ROLES else f"{tool} ({ROLES[tool]}'s tool)"
    return f"{VERBS[verb][0]} {said}" if verb else said
