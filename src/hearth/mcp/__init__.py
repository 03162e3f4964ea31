"""The MCP edge: hearth's home as tools, resources and a prompt for agent runtimes.

An edge like the HTTP API: each tool parses its arguments, makes one call on
the served home (``ServedHearth``) and renders the answer; no flow logic, no
locks, no pygit2 here. ``server`` builds the server, ``tools`` holds the tools,
``calls`` runs a call (scope, thread, errors), ``http`` mounts it in
``hearth serve`` and ``hearth mcp`` (cli_mcp) runs it over stdio.
"""
