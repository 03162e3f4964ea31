"""The thin clients of a home's server: asking it (``delegate``) and relaying a
stdio MCP session to it (``relay``). Lean on purpose: importing this package
loads neither click nor the rest of hearth, so ``hearth mcp`` as a relay is a
small process (``hearth.launch``)."""
