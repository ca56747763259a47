"""The MCP server: an agent's memory for LLM agents, one Agent call per tool.

server (building and running the MCPServer), tools (the tools and their results).
"""
