"""Answering requests the SDK's transport cannot read.

The SDK parses each line strictly and hands a line it cannot parse to the session as an
exception, which has no request id to answer: a tools/call whose text holds a lone
surrogate (JSON allows the escape "\\ud800", UTF-8 cannot carry it) was never answered
and the client waited for ever. `Answering` stands between the transport and the
session: such a line, read again by Python's own JSON parser, gets an answer for its id,
naming the argument, as every other bad input does.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.shared.message import SessionMessage
from mcp.types import CallToolResult, ErrorData, JSONRPCError, JSONRPCResponse, TextContent
from pydantic import ValidationError

from ..model import text_problem

INVALID_PARAMS = -32602  # JSON-RPC 2.0
PARSE_ERROR = -32700


def answer(exc: Exception) -> JSONRPCResponse | JSONRPCError | None:
    """The answer to the request in a line the transport could not read, or None when the
    line is no request with an id (nobody waits for an answer then)."""
    line = _line_of(exc)
    try:
        request = json.loads(line) if line is not None else None
    except ValueError:
        return None
    if not isinstance(request, dict) or not isinstance(request.get("id"), (str, int)) or \
            isinstance(request["id"], bool) or not isinstance(request.get("method"), str):
        return None
    params = request.get("params")
    if request["method"] == "tools/call" and isinstance(params, dict) and isinstance(params.get("arguments"), dict):
        found = _bad_text(params["arguments"], [])
        if found is not None:
            result = CallToolResult(content=[TextContent(type="text", text=found)], is_error=True)
            return JSONRPCResponse(jsonrpc="2.0", id=request["id"],
                                   result=result.model_dump(by_alias=True, exclude_none=True))
    found = _bad_text(params, ["params"])
    error = ErrorData(code=INVALID_PARAMS, message=found) if found else \
        ErrorData(code=PARSE_ERROR, message=str(exc).splitlines()[-1].strip() or "not a JSON-RPC message")
    return JSONRPCError(jsonrpc="2.0", id=request["id"], error=error)


def _line_of(exc: Exception) -> str | None:
    """The line the transport failed to parse (pydantic keeps it as the error's input)."""
    if not isinstance(exc, ValidationError):
        return None
    for error in exc.errors():
        if isinstance(error.get("input"), str):
            return error["input"]
    return None


def _bad_text(value: Any, where: list[str]) -> str | None:
    """"<where>: <problem>" for the first text in `value` (keys included) no engine can take."""
    if isinstance(value, str):
        problem = text_problem(value)
        return f"{'.'.join(where) or 'arguments'}: {problem}" if problem else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        problem = text_problem(str(key))
        if problem:  # the key itself: said by position, never echoed (the answer must be UTF-8)
            return f"{'.'.join(where) or 'arguments'}: a key is {problem}"
        found = _bad_text(item, [*where, str(key)])
        if found:
            return found
    return None


class Answering:
    """The transport's read stream, less the lines `answer` answers on `write_stream`."""

    def __init__(self, read_stream: Any, write_stream: Any):
        self._read, self._write = read_stream, write_stream

    @property
    def last_context(self):  # the sender's context of the last message, as the SDK's stream keeps it
        return getattr(self._read, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._read.receive()
            if not await self._answered(item):
                return item

    async def _answered(self, item: Any) -> bool:
        reply = answer(item) if isinstance(item, Exception) else None
        if reply is not None:
            await self._write.send(SessionMessage(reply))
        return reply is not None

    def __aiter__(self) -> "Answering":
        return self

    async def __anext__(self) -> Any:
        while True:
            item = await self._read.__anext__()
            if not await self._answered(item):
                return item

    async def aclose(self) -> None:
        await self._read.aclose()

    async def __aenter__(self) -> "Answering":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()
