"""A tiny MCP server over stdio for the tests: tools `echo`, then on a second page of
tools/list (to exercise nextCursor) `add`, `fail` (answers isError) and `quit` (exits without
answering). Stdlib only.

Run with `--crash` to exit before answering (a server that fails to start), or `--hang` to
never answer (a server that times out).
"""

import json
import sys

TOOLS = [
    {"name": "echo", "description": "Use when the user asks to echo a text back.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                     "required": ["text"]}},
    {"name": "add", "description": "Add two numbers.",
     "inputSchema": {"type": "object", "properties": {"a": {"type": "number"},
                                                      "b": {"type": "number"}},
                     "required": ["a", "b"]}},
    {"name": "fail", "description": "Always fails.", "inputSchema": {"type": "object"}},
    {"name": "quit", "description": "Exits the server without answering.",
     "inputSchema": {"type": "object"}},
]


def reply(message_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}) + "\n")
    sys.stdout.flush()


def call(name, args):
    if name == "echo":
        return {"content": [{"type": "text", "text": f"echo: {args['text']}"}]}
    if name == "add":
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}
    if name == "quit":
        print("mcp_echo_server: quitting", file=sys.stderr, flush=True)
        sys.exit(0)
    return {"content": [{"type": "text", "text": "this tool always fails"}], "isError": True}


def main():
    if "--crash" in sys.argv:
        print("mcp_echo_server: cannot open the database", file=sys.stderr)
        sys.exit(3)
    for line in sys.stdin:
        message = json.loads(line)
        method, message_id = message.get("method"), message.get("id")
        print(f"mcp_echo_server: got {method}", file=sys.stderr, flush=True)
        if message_id is None or "--hang" in sys.argv:
            continue  # notifications (and everything, when hanging) get no answer
        params = message.get("params") or {}
        if method == "initialize":
            reply(message_id, {"protocolVersion": params["protocolVersion"],
                               "capabilities": {"tools": {}},
                               "serverInfo": {"name": "echo", "version": "1"}})
        elif method == "tools/list":
            page = TOOLS[:1] if "cursor" not in params else TOOLS[1:]
            result = {"tools": page}
            if "cursor" not in params:
                result["nextCursor"] = "page2"
            reply(message_id, result)
        elif method == "tools/call":
            reply(message_id, call(params["name"], params.get("arguments") or {}))
        else:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "error": {
                "code": -32601, "message": f"Method not found: {method}"}}) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
